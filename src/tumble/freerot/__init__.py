"""Free rigid-body rotation: every scheme of the seeds behind one contract, and the exact solution.

>>> from tumble.freerot import integrate, SCHEMES
>>> traj = integrate("implicit", (5/12, 10/12, 13/12), (1e-3, 1e-3, 10.0), dt=0.01, t_end=1.0)
"""

from tumble.freerot.base import FreeRotationScheme, SchemeId
from tumble.freerot.exact import exact
from tumble.freerot.registry import SCHEMES, STEPPERS, get_scheme
from tumble.freerot.solve import advance, integrate, step
from tumble.freerot.trajectory import Trajectory

__all__ = [
    "SCHEMES",
    "STEPPERS",
    "FreeRotationScheme",
    "SchemeId",
    "Trajectory",
    "advance",
    "exact",
    "get_scheme",
    "integrate",
    "step",
]
