"""Exact solution of torque-free rotation with Jacobi elliptic functions (placeholder)."""

from __future__ import annotations


def exact(inertia, omega0, q0, t):
    raise NotImplementedError("the exact solution is not implemented yet")
