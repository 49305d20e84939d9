"""The order in which ``tumble rockfall calibrate`` refines its sets and picks the best: the sets
the observations do not reject (KS p-value at least the test's level) first, each group by its
objective."""

from __future__ import annotations

from tumble.pipeline.calibration.scores import KS_LEVEL
from tumble.pipeline.calibration.search import ranked


def _set(objective: float, ks_pvalue: float) -> dict[str, float]:
    return {"objective": objective, "ks_pvalue": ks_pvalue}


def test_a_set_the_data_reject_comes_after_every_set_they_do_not_whatever_its_objective():
    sets = [
        _set(0.10, 0.001),  # least objective, rejected
        _set(0.30, 0.20),
        _set(0.20, KS_LEVEL),  # at the level: not rejected
        _set(0.15, 0.049),
    ]
    assert ranked(sets) == [2, 1, 0, 3]
    # among a subset (the refined sets), the same rule
    assert ranked(sets, [0, 1, 3]) == [1, 0, 3]


def test_when_the_data_reject_every_set_the_objective_alone_orders_them_ties_by_index():
    sets = [_set(0.4, 0.01), _set(0.2, 0.0), _set(0.2, 0.03), _set(0.3, 0.04)]
    assert ranked(sets) == [1, 2, 3, 0]
