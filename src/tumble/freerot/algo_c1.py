"""ALGO_C1 of Simo & Wong 1991 (placeholder until implemented)."""

from __future__ import annotations

from dataclasses import dataclass

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme
from tumble.status import Status


@jit
def algo_c1_step(inertia, y, dt, tol, max_iter, potential, y_out):
    return Status.NO_SOLUTION


@dataclass(frozen=True)
class AlgoC1(FreeRotationScheme):
    name = "algo_c1"
    order = 2
    preserves = frozenset({"energy", "spin_norm", "spin", "unit_quaternion"})
    implicit = True
    scheme_id = 6
