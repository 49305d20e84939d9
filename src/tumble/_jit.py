"""The one place where numba is configured.

Every compiled kernel in tumble is decorated with :func:`jit` (or :func:`jit_parallel`
for loops over rocks). Settings:

* ``cache=True``: compiled machine code is stored next to the sources and reused.
* ``fastmath=False``: the invariant tests need IEEE arithmetic (no reassociation).
* ``TUMBLE_DISABLE_JIT=1`` in the environment runs every kernel as plain Python, for
  debugging with pdb or coverage; results are identical, only slower.
"""

from __future__ import annotations

import os

import numba

DISABLED = os.environ.get("TUMBLE_DISABLE_JIT", "0") not in ("", "0", "false", "False")

_OPTIONS = {"cache": True, "fastmath": False, "nogil": True, "error_model": "numpy"}


def jit(func=None, **overrides):
    """Compile ``func`` in nopython mode with the project's settings."""
    if DISABLED:
        return func if func is not None else (lambda f: f)
    options = {**_OPTIONS, **overrides}
    if func is None:
        return numba.njit(**options)
    return numba.njit(**options)(func)


def jit_parallel(func=None):
    """Like :func:`jit`, with ``parallel=True`` so that ``numba.prange`` loops run on threads."""
    return jit(func, parallel=True)


prange = range if DISABLED else numba.prange
