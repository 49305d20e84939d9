"""The table of free-rotation schemes: name -> scheme class."""

from __future__ import annotations

from typing import Any

from tumble.freerot.algo_c1 import AlgoC1
from tumble.freerot.base import FreeRotationScheme
from tumble.freerot.dir_em import DirEM
from tumble.freerot.explicit import Explicit
from tumble.freerot.implicit_midpoint import Implicit
from tumble.freerot.quat_em import QuatEM
from tumble.freerot.quat_vi import QuatVI
from tumble.freerot.rk4 import RK4

STEPPERS: dict[str, type[FreeRotationScheme]] = {
    cls.name: cls for cls in (Explicit, Implicit, QuatEM, QuatVI, DirEM, AlgoC1, RK4)
}

#: every scheme name accepted by :func:`tumble.freerot.integrate`, the exact solution last
SCHEMES: tuple[str, ...] = (*STEPPERS, "exact")


def get_scheme(scheme: str | FreeRotationScheme, **settings: Any) -> FreeRotationScheme:
    """A scheme instance from its name (with optional ``tol``/``max_iter``) or an instance."""
    if isinstance(scheme, FreeRotationScheme):
        return scheme
    if not isinstance(scheme, str) or scheme not in STEPPERS:
        known = ", ".join(SCHEMES)
        raise ValueError(f"unknown scheme {scheme!r}; choose one of: {known}")
    settings = {k: v for k, v in settings.items() if v is not None}
    return STEPPERS[scheme](**settings)
