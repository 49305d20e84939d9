"""The atomic counter of tumble._jit: the threads of a prange loop that share it take each of
its values once. And its cycle counter: it never runs backwards and ticks at one rate."""

import numpy as np

from tumble._jit import (
    cycle_rate,
    cycles,
    get_threads,
    jit,
    jit_parallel,
    prange,
    set_threads,
    take,
)


@jit_parallel
def _take_all(n: int, workers: int, counter: np.ndarray, taken: np.ndarray) -> None:
    for _ in prange(workers):
        while True:
            k = take(counter)
            if k >= n:
                break
            # some work, so that the threads interleave
            s = 0.0
            for j in range(1000 * (k % 7)):
                s += j
            taken[k] += 1 + int(s < 0.0)


def test_every_value_is_taken_once_by_one_of_the_threads():
    """Each of 0 .. n-1 is taken by exactly one thread, and every thread's last take (the one
    past the end) raises the counter once more: n + workers."""
    before = get_threads()
    previous = set_threads(min(2, get_threads()))
    try:
        for n, workers in ((0, 2), (1, 2), (257, 2), (1000, 3)):
            counter = np.zeros(1, dtype=np.int64)
            taken = np.zeros(n, dtype=np.int64)
            _take_all(n, workers, counter, taken)
            assert np.all(taken == 1)
            assert counter[0] == n + workers
    finally:
        set_threads(previous)
    assert get_threads() == before


@jit
def _read_twice(n: int, out: np.ndarray) -> None:
    for i in range(n):
        out[i] = cycles()


def test_the_cycle_counter_never_runs_backwards_and_ticks_at_one_rate():
    """``cycles()`` read in a compiled loop never decreases and advances over the loop; its
    rate (:func:`cycle_rate`), measured twice, is the same within 5 % (a constant-rate
    counter)."""
    out = np.zeros(10_000, dtype=np.int64)
    _read_twice(out.size, out)
    assert np.all(np.diff(out) >= 0)
    assert out[-1] > out[0]
    first, second = cycle_rate(0.1), cycle_rate(0.1)
    assert first > 1e6
    assert abs(first - second) <= 0.05 * first
