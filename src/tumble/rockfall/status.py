"""How a simulated rock ends: the codes the rockfall kernels return, and their names.

The per-rock step returns ``Status.OK`` while the rock moves on, ``LEFT_DOMAIN`` when a hull vertex
leaves the DEM, or one of the failure codes of :class:`tumble.status.Status` (the Newton
iteration of the implicit scheme, a singular 3x3 system, a NaN, ``PENETRATED``: a hull vertex
deeper below the terrain than the rock's radius, a step the contact model could not resolve).
The per-rock loop adds ``STOPPED`` (at rest), ``TIMED_OUT`` (``t_max`` reached) and ``CAUGHT``
(held by a net of :mod:`tumble.rockfall.step.nets`). The Python API turns codes into the strings of
:data:`NAMES`; an ensemble keeps the code of every rock.
"""

from __future__ import annotations

from enum import IntEnum

from tumble.status import MESSAGES, Status


class RockStatus(IntEnum):
    """End states of a rock; the failure codes coincide with :class:`tumble.status.Status`."""

    RUNNING = 0
    NEWTON_NOT_CONVERGED = int(Status.NEWTON_NOT_CONVERGED)
    SINGULAR_MATRIX = int(Status.SINGULAR_MATRIX)
    NON_FINITE = int(Status.NON_FINITE)
    NO_SOLUTION = int(Status.NO_SOLUTION)
    PENETRATED = int(Status.PENETRATED)
    STOPPED = 10
    LEFT_DOMAIN = 11
    TIMED_OUT = 12
    CAUGHT = 13


#: plain kernel constants (numba reads module-level ints as compile-time constants); the values
#: are those of the enums above
OK = int(Status.OK)
RUNNING = int(RockStatus.RUNNING)
NEWTON_NOT_CONVERGED = int(RockStatus.NEWTON_NOT_CONVERGED)
SINGULAR_MATRIX = int(RockStatus.SINGULAR_MATRIX)
NON_FINITE = int(RockStatus.NON_FINITE)
NO_SOLUTION = int(RockStatus.NO_SOLUTION)
PENETRATED = int(RockStatus.PENETRATED)
STOPPED = int(RockStatus.STOPPED)
LEFT_DOMAIN = int(RockStatus.LEFT_DOMAIN)
TIMED_OUT = int(RockStatus.TIMED_OUT)
CAUGHT = int(RockStatus.CAUGHT)

#: the status strings of a trajectory
NAMES = {
    RockStatus.RUNNING: "running",
    RockStatus.STOPPED: "stopped",
    RockStatus.LEFT_DOMAIN: "left_domain",
    RockStatus.TIMED_OUT: "timed_out",
    RockStatus.CAUGHT: "caught",
    RockStatus.NEWTON_NOT_CONVERGED: "newton_not_converged",
    RockStatus.SINGULAR_MATRIX: "singular_matrix",
    RockStatus.NON_FINITE: "non_finite",
    RockStatus.NO_SOLUTION: "no_solution",
    RockStatus.PENETRATED: "penetrated",
}

#: the regular ends of a run; every other status is a numerical failure
REGULAR = frozenset(
    {RockStatus.STOPPED, RockStatus.LEFT_DOMAIN, RockStatus.TIMED_OUT, RockStatus.CAUGHT}
)


def status_name(code: int) -> str:
    """The string of a status code (``"stopped"``, ``"left_domain"``, ...)."""
    return NAMES[RockStatus(int(code))]


def status_message(code: int) -> str:
    """A sentence explaining a status code, for error messages."""
    code = RockStatus(int(code))
    if code == RockStatus.STOPPED:
        return "the rock came to rest"
    if code == RockStatus.LEFT_DOMAIN:
        return "a hull vertex left the DEM"
    if code == RockStatus.TIMED_OUT:
        return "t_max was reached while the rock was still moving"
    if code == RockStatus.CAUGHT:
        return "a net caught the rock"
    if code == RockStatus.RUNNING:
        return "the rock is still moving"
    return MESSAGES[Status(int(code))]
