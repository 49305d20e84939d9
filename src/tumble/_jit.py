"""The one place where numba is configured.

Every compiled kernel in tumble is decorated with :func:`jit` (or :func:`jit_parallel`
for loops over rocks, :func:`jit_leaf` for a hot kernel that never allocates). Settings:

* ``cache=True``: compiled machine code is stored next to the sources and reused.
* ``fastmath=False``: the invariant tests need IEEE arithmetic (no reassociation).
* The cache lives in ``$XDG_CACHE_HOME/tumble/numba-<hash>`` (``~/.cache`` by default), where the
  hash is taken over every source file of the package. Numba checks only the timestamp of the
  file that defines a function, not of the kernels it calls from other modules; keying the whole
  cache on the package sources means an edited kernel never runs from a stale cache.
  ``TUMBLE_CACHE_DIR`` (or numba's own ``NUMBA_CACHE_DIR``) overrides the location.
* ``TUMBLE_DISABLE_JIT=1`` in the environment runs every kernel as plain Python, for
  debugging with pdb or coverage; results are identical, only slower.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast, overload

import numba
import numpy as np

DISABLED = os.environ.get("TUMBLE_DISABLE_JIT", "0") not in ("", "0", "false", "False")

# numba.config creates its settings at run time (through ``globals()``), invisible to a type
# checker: they are read and written through this reference typed Any.
_NUMBA_CONFIG: Any = numba.config

F = TypeVar("F", bound=Callable[..., Any])


def _source_hash() -> str:
    digest = hashlib.sha1()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = os.environ.get("TUMBLE_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = str(Path(xdg) / "tumble")
    _NUMBA_CONFIG.CACHE_DIR = str(Path(base) / f"numba-{_source_hash()}")


_configure_cache()

_OPTIONS = {"cache": True, "fastmath": False, "nogil": True, "error_model": "numpy"}


def _identity(func: F) -> F:
    return func


@overload
def jit(func: F, **overrides: Any) -> F: ...
@overload
def jit(func: None = None, **overrides: Any) -> Callable[[F], F]: ...
def jit(func: F | None = None, **overrides: Any) -> F | Callable[[F], F]:
    """Compile ``func`` in nopython mode with the project's settings.

    Used bare (``@jit``) or with numba options (``@jit(inline="always")``). The compiled
    dispatcher is typed as the decorated function, so its annotations stay those of the kernel.
    """
    if DISABLED:
        return func if func is not None else _identity
    options: dict[str, Any] = {**_OPTIONS, **overrides}
    if func is None:
        decorator: Callable[[F], F] = numba.njit(**options)
        return decorator
    compiled: F = numba.njit(**options)(func)
    return compiled


@overload
def jit_parallel(func: F) -> F: ...
@overload
def jit_parallel(func: None = None) -> Callable[[F], F]: ...
def jit_parallel(func: F | None = None) -> F | Callable[[F], F]:
    """Like :func:`jit`, with ``parallel=True`` so that ``numba.prange`` loops run on threads."""
    return jit(func, parallel=True)


@overload
def jit_leaf(func: F) -> F: ...
@overload
def jit_leaf(func: None = None) -> Callable[[F], F]: ...
def jit_leaf(func: F | None = None) -> F | Callable[[F], F]:
    """Like :func:`jit`, for a kernel that never allocates (it works on the arrays it is given):
    compiled without numba's reference counting, so that a call pays no atomic increment and
    decrement for each array it is passed (a step kernel called millions of times with a dozen
    arrays spent a fifth of its time on them). Such a kernel cannot create an array; numba
    refuses to compile one that tries."""
    return jit(func, _nrt=False)


prange = range if DISABLED else numba.prange


def set_threads(n: int | None = None) -> int:
    """Use ``n`` threads in the ``prange`` loops of :func:`jit_parallel` kernels (None: all the
    cores numba was started with); returns the number used before. A no-op returning 1 when
    the JIT is disabled."""
    if DISABLED:
        return 1
    previous = numba.get_num_threads()
    limit: int = _NUMBA_CONFIG.NUMBA_NUM_THREADS
    if n is None:
        n = limit
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= limit:
        raise ValueError(f"threads must be an integer from 1 to {limit}, got {n!r}")
    numba.set_num_threads(n)
    return previous


def _take_python(counter: np.ndarray) -> int:
    k = int(counter[0])
    counter[0] = k + 1
    return k


def _take_intrinsic() -> Callable[[np.ndarray], int]:
    from numba.core import types
    from numba.core.extending import intrinsic

    @intrinsic
    def take(typingctx: Any, counter: Any) -> Any:
        if not (
            isinstance(counter, types.Array)
            and counter.dtype == types.int64
            and counter.ndim == 1
            and counter.mutable
        ):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            array = context.make_array(signature.args[0])(context, builder, args[0])
            one = context.get_constant(types.int64, 1)
            return builder.atomic_rmw("add", array.data, one, "monotonic")

        return types.int64(counter), codegen

    return cast(Callable[[np.ndarray], int], take)


#: ``take(counter)``: element 0 of the int64 array ``counter`` raised by one in a single atomic
#: operation, its value before returned. The threads of a ``prange`` loop that share a counter
#: take its values 0, 1, 2, ... once each, in the order they ask, so that a thread that has
#: finished its item takes the next one: a dynamic schedule, which numba's OpenMP layer does not
#: offer (it splits a ``prange`` into one fixed share a thread, whatever
#: ``numba.parallel_chunksize`` says). Callable from compiled code only (plain Python when the
#: JIT is off).
take: Callable[[np.ndarray], int] = _take_python if DISABLED else _take_intrinsic()


def get_threads() -> int:
    """Number of threads the ``prange`` loops use now."""
    return 1 if DISABLED else numba.get_num_threads()


def is_cached(kernel: Any) -> bool:
    """Whether calling ``kernel`` will not compile it: it is compiled in this process already, or
    its machine code is in the cache (an index file for it exists). True when the JIT is off."""
    if DISABLED or getattr(kernel, "signatures", None):
        return True
    try:
        index = kernel._cache._cache_file._index_path
    except AttributeError:
        return False
    return os.path.exists(index)


def _cycles_python() -> int:
    return time.perf_counter_ns()


def _cycles_intrinsic() -> Callable[[], int]:
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.core.extending import intrinsic

    @intrinsic
    def cycles(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            fnty = ir.FunctionType(ir.IntType(64), [])
            counter = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
            return builder.call(counter, [])

        return types.int64(), codegen

    return cast(Callable[[], int], cycles)


#: ``cycles()``: the processor's cycle counter (``llvm.readcyclecounter``: the time-stamp
#: counter on x86-64, which ticks at a constant rate), for timing the parts of a compiled
#: kernel from inside it (``benchmarks/mujoco_speed.py``); reading it costs a few dozen cycles.
#: Callable from compiled code only (nanoseconds of ``time.perf_counter_ns`` when the JIT is
#: off). Its rate is that of :func:`cycle_rate`.
cycles: Callable[[], int] = _cycles_python if DISABLED else _cycles_intrinsic()


def cycle_rate(seconds: float = 0.2) -> float:
    """Ticks of :data:`cycles` a second, measured against ``time.perf_counter`` over
    ``seconds``."""
    read = _read_cycles if not DISABLED else _cycles_python
    read()  # compiled before the clock starts
    c0 = read()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        pass
    c1 = read()
    t1 = time.perf_counter()
    return (c1 - c0) / (t1 - t0)


@jit
def _read_cycles() -> int:
    return cycles()
