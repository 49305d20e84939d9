"""The contract every free-rotation integrator follows.

A scheme is a frozen dataclass whose class-level metadata says what it is:

``scheme_id``
    the scheme's :class:`SchemeId`, on which the compiled driver dispatches;
``name``
    the short name used everywhere (``tumble.freerot.SCHEMES``, the command line), derived from
    ``scheme_id`` (its member name in lower case);
``order``
    the order of accuracy of the attitude and angular velocity;
``preserves``
    the invariants kept exactly (to round-off) in a torque-free motion, from
    ``{"energy", "spin_norm", "spin", "unit_quaternion", "momentum_map", "director_energy"}``;
    ``spin`` is the angular momentum vector in the inertial frame, ``spin_norm`` its magnitude,
    ``momentum_map`` the discrete momentum map of a variational integrator, ``director_energy``
    the kinetic energy of the director velocities of DIR.EM (which differs from the energy of the
    reported body angular velocity by O(dt^4), since the discrete director velocities are not
    exactly tangent to SO(3));
``implicit``
    whether a step solves a nonlinear system (Newton iteration);
``supports_potential``
    whether a potential V(q) of a uniform gravity field acting on an offset centre of mass
    (the heavy top) may be given.

Settings (``tol``, ``max_iter``) are frozen fields. The state of one body is a flat float64
vector ``y``: ``y[0:4]`` is the unit quaternion (w, x, y, z, body to space), ``y[4:7]`` the
angular velocity in the body frame, and ``y[7:state_size]`` any private representation the scheme
carries from step to step (quaternion momenta, director velocities, the previous step).

The numerical method is one compiled kernel,

``step(inertia, y, dt, tol, max_iter, potential, y_out) -> status``

with ``inertia = (A, B, C)``, ``potential = (M g, c_x, c_y, c_z)`` (weight and body-frame vector
from the fixed point to the centre of mass; all zero for a free body) and a status code of
:class:`tumble.status.Status`. Looping, saving and invariants live once, in
:mod:`tumble.freerot.solve`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import numpy as np

#: index ranges in the state vector
Q = slice(0, 4)
OMEGA = slice(4, 7)
PRIVATE = 7

INVARIANTS = frozenset(
    {"energy", "spin_norm", "spin", "unit_quaternion", "momentum_map", "director_energy"}
)


class SchemeId(IntEnum):
    """The id of every stepping scheme, as the compiled drivers dispatch on it.

    The member's lower-case name is the scheme's name everywhere else (``SchemeId.QUAT_EM`` is
    ``"quat_em"`` on the command line, in configurations and in :data:`tumble.freerot.SCHEMES`).
    """

    EXPLICIT = 1
    IMPLICIT = 2
    QUAT_EM = 3
    QUAT_VI = 4
    DIR_EM = 5
    ALGO_C1 = 6
    RK4 = 7

    @property
    def label(self) -> str:
        """The scheme's name: the member name in lower case."""
        return self.name.lower()

    @classmethod
    def from_label(cls, label: str) -> SchemeId:
        """The id of the scheme called ``label``; ValueError listing the names otherwise."""
        for member in cls:
            if member.label == label:
                return member
        known = ", ".join(m.label for m in cls)
        raise ValueError(f"unknown scheme {label!r}; choose one of: {known}")


@dataclass(frozen=True)
class FreeRotationScheme:
    """Base of all free-rotation schemes; see the module docstring for the contract."""

    scheme_id: ClassVar[SchemeId]
    name: ClassVar[str]
    order: ClassVar[int]
    preserves: ClassVar[frozenset[str]]
    implicit: ClassVar[bool]
    state_size: ClassVar[int] = 7
    supports_potential: ClassVar[bool] = False

    tol: float = 1e-14
    max_iter: int = 50

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # the name is spelled once, in SchemeId
        cls.name = cls.scheme_id.label

    def __post_init__(self) -> None:
        if not (0.0 < self.tol < 1e-3):
            raise ValueError(f"tol must be in (0, 1e-3), got {self.tol}")
        if self.max_iter < 1:
            raise ValueError(f"max_iter must be at least 1, got {self.max_iter}")

    def initial_state(
        self,
        inertia: np.ndarray,
        q0: np.ndarray,
        omega0: np.ndarray,
        dt: float,
        potential: np.ndarray,
    ) -> np.ndarray:
        """The state vector at t = 0; schemes with private state override this."""
        y = np.zeros(self.state_size)
        y[Q] = q0
        y[OMEGA] = omega0
        return y

    def describe(self) -> str:
        kept = ", ".join(sorted(self.preserves)) or "none"
        kind = "implicit" if self.implicit else "explicit"
        return f"{self.name}: order {self.order}, {kind}, exact invariants: {kept}"
