"""How each rock of an ensemble ended, without the hazard products: its status, its steps and
its final centre of mass, the rocks run in chunks (the validations and the calibration, which
score stop points only)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tumble.rockfall.ensemble.driver import Ensemble


def run_outcomes(
    ensemble: Ensemble,
    chunk_rocks: int,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, np.ndarray]:
    """Every rock's ``status`` (n,) int64, ``steps`` (n,) int64 and ``stop`` (n, 3), its final
    centre of mass (m), in the ensemble's order; the rocks run ``chunk_rocks`` at a time with
    :meth:`Ensemble.run_chunk` on ``threads`` threads, and ``progress(lo, hi)`` is called after
    the chunk of rocks ``lo .. hi - 1``. The numbers do not depend on ``threads``."""
    if chunk_rocks < 1:
        raise ValueError(f"chunk_rocks must be positive, got {chunk_rocks!r}")
    n = ensemble.n_rocks
    status = np.empty(n, dtype=np.int64)
    steps = np.empty(n, dtype=np.int64)
    stop = np.empty((n, 3))
    spans = [(lo, min(lo + chunk_rocks, n)) for lo in range(0, n, chunk_rocks)]
    for (lo, hi), chunk in zip(spans, ensemble.run_spans(spans, threads), strict=True):
        status[lo:hi] = chunk["status"]
        steps[lo:hi] = chunk["steps"]
        stop[lo:hi] = chunk["final_state"][:, :3]
        if progress is not None:
            progress(lo, hi)
    return {"status": status, "steps": steps, "stop": stop}
