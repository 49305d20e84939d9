"""QUAT.EM of Betsch & Siebert 2009 (placeholder until implemented)."""

from __future__ import annotations

from dataclasses import dataclass

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme
from tumble.status import Status


@jit
def quat_em_step(inertia, y, dt, tol, max_iter, potential, y_out):
    return Status.NO_SOLUTION


@dataclass(frozen=True)
class QuatEM(FreeRotationScheme):
    name = "quat_em"
    order = 2
    preserves = frozenset({"energy", "spin_norm", "spin", "unit_quaternion"})
    implicit = True
    scheme_id = 3
    supports_potential = True
