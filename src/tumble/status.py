"""Status codes returned by compiled kernels, and the messages the Python API raises from them.

Kernels never raise: they return one of these integers and the wrapper turns anything other than
``OK`` into an exception (or, for ensembles, into a per-rock status).
"""

from __future__ import annotations

from enum import IntEnum


class Status(IntEnum):
    OK = 0
    NEWTON_NOT_CONVERGED = 1
    SINGULAR_MATRIX = 2
    NON_FINITE = 3
    NO_SOLUTION = 4
    PENETRATED = 5


MESSAGES = {
    Status.OK: "success",
    Status.NEWTON_NOT_CONVERGED: (
        "the Newton iteration of an implicit step did not converge within max_iter iterations; "
        "reduce dt or raise max_iter"
    ),
    Status.SINGULAR_MATRIX: "a 3x3 or 4x4 system of a step was singular; reduce dt",
    Status.NON_FINITE: "the state became NaN or infinite; reduce dt or check the initial state",
    Status.NO_SOLUTION: "the discrete equations of the step have no solution at this dt; reduce dt",
    Status.PENETRATED: (
        "a hull vertex went deeper below the terrain than the rock's radius: the step is too "
        "large for the contact model to resolve; reduce dt"
    ),
}


class KernelError(RuntimeError):
    """A compiled kernel reported a failure status."""

    def __init__(self, status: int, where: str = ""):
        self.status = Status(status)
        prefix = f"{where}: " if where else ""
        super().__init__(prefix + MESSAGES[self.status])


def check(status: int, where: str = "") -> None:
    """Raise :class:`KernelError` unless ``status`` is ``Status.OK``."""
    if status != Status.OK:
        raise KernelError(status, where)
