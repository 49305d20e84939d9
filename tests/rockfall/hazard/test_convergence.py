"""The convergence check over the window the rocks reached equals the check over full grids."""

from __future__ import annotations

import numpy as np

from tumble.rockfall.ensemble.rasters import Rasters, Window
from tumble.rockfall.hazard.convergence import Convergence


def test_the_windowed_check_equals_the_check_of_the_full_grids():
    """Random intervals over a 4 x 5 window of a 9 x 12 grid: the counted and converged cells of
    the windowed rasters are exactly those of the same rasters as full grids (outside the window
    the reach probability is 0, so nothing there counts), and the record's counts agree."""
    rng = np.random.default_rng(3)
    window = Window(2, 6, 4, 9)
    size = (window.j1 - window.j0, window.i1 - window.i0)
    p = rng.uniform(0.0, 0.5, size)
    p[0, 0] = 0.0
    half = rng.uniform(0.0, 0.2, size)
    e95 = rng.uniform(10.0, 100.0, size)
    spread = rng.uniform(0.0, 0.2, size)
    values = {
        "reach_probability": p,
        "reach_probability_low": np.maximum(p - half * p, 0.0),
        "reach_probability_high": p + half * p,
        "kinetic_energy_p95": e95,
        "kinetic_energy_p95_low": e95 * (1 - spread),
        "kinetic_energy_p95_high": e95 * (1 + spread),
    }
    values["kinetic_energy_p95_high"][1, 2] = np.nan  # too few rocks for an interval
    rasters = Rasters((9, 12), window, values, outside={"reach_probability_high": 0.3})
    full = {name: rasters[name] for name in rasters}
    check = Convergence(target=0.1, min_probability=0.05)
    for windowed, whole in zip(check.check(rasters), check.check(full), strict=True):
        assert windowed.shape == (9, 12) and np.array_equal(windowed, whole)
    counted, converged = check.check(full)
    assert 0 < converged.sum() < counted.sum()  # the case is not trivial
    assert check.record(rasters, 100) == check.record(full, 100)
