"""DIR.EM of Betsch & Steinmann 2001 (placeholder until implemented)."""

from __future__ import annotations

from dataclasses import dataclass

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme
from tumble.status import Status


@jit
def dir_em_step(inertia, y, dt, tol, max_iter, potential, y_out):
    return Status.NO_SOLUTION


@dataclass(frozen=True)
class DirEM(FreeRotationScheme):
    name = "dir_em"
    order = 2
    preserves = frozenset({"energy", "spin_norm", "spin", "unit_quaternion"})
    implicit = True
    scheme_id = 5
    supports_potential = True
