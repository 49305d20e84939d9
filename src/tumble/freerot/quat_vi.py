"""QUAT.VI of Betsch & Siebert 2009 (placeholder until implemented)."""

from __future__ import annotations

from dataclasses import dataclass

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme
from tumble.status import Status


@jit
def quat_vi_step(inertia, y, dt, tol, max_iter, potential, y_out):
    return Status.NO_SOLUTION


@dataclass(frozen=True)
class QuatVI(FreeRotationScheme):
    name = "quat_vi"
    order = 2
    preserves = frozenset({"momentum_map", "unit_quaternion"})
    implicit = True
    scheme_id = 4
    supports_potential = True
