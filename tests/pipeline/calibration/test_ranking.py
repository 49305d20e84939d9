"""The order in which ``tumble rockfall calibrate`` refines its sets and picks the best (the sets
the observations do not reject, KS p-value at least the test's level, first, each group by its
objective), and the sets its zoom rounds draw."""

from __future__ import annotations

import numpy as np

from tumble.pipeline.calibration.scores import KS_LEVEL
from tumble.pipeline.calibration.search import choose, medoid, ranked, zoom_design
from tumble.pipeline.calibration.site import FreeField


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


def test_a_zoom_round_draws_a_latin_hypercube_in_a_box_of_half_the_width_inside_the_range():
    """Round ``level`` draws in a box ``2^-level`` times each range's width, centred on the best
    set, shifted (not shrunk) where it would leave the range; one point in each of the
    hypercube's strata per field."""
    free = (FreeField("rolling_resistance", 0.0, 0.8), FreeField("2.mu_min", 0.2, 0.6))
    centre = {"rolling_resistance": 0.3, "2.mu_min": 0.58}  # near the top of mu_min's range
    for level in (1, 2):
        points = 8
        drawn = zoom_design(free, centre, points, seed=3, level=level)
        assert len(drawn) == points
        rr = np.array([d["rolling_resistance"] for d in drawn])
        mu = np.array([d["2.mu_min"] for d in drawn])
        w_rr, w_mu = 0.8 * 0.5**level, 0.4 * 0.5**level
        lo_rr, lo_mu = 0.3 - w_rr / 2, 0.6 - w_mu  # mu_min's box shifted down to the range
        assert np.all((rr >= lo_rr) & (rr <= lo_rr + w_rr))
        assert np.all((mu >= lo_mu - 1e-12) & (mu <= 0.6))
        # a Latin hypercube: each of the 8 strata of each field's box holds one point
        for values, low, width in ((rr, lo_rr, w_rr), (mu, lo_mu, w_mu)):
            strata = np.floor((values - low) / width * points).astype(int)
            assert sorted(np.clip(strata, 0, points - 1)) == list(range(points))
    # deterministic for a seed, another draw for another level
    again = zoom_design(free, centre, 8, seed=3, level=1)
    assert again == zoom_design(free, centre, 8, seed=3, level=1)
    assert again != zoom_design(free, centre, 8, seed=3, level=2)


def _at(objective: float, **values: float) -> dict:
    return {"objective": objective, "ks_pvalue": 0.5, "values": values}


def test_the_medoid_is_the_set_at_the_centre_of_the_accepted_sets_each_field_scaled_to_its_range():
    """Four sets at the corners of a box and one at its centre: the centre has the least summed
    L1 distance (4 half-widths against 6); each field counts in units of its free range."""
    free = (FreeField("mu_min", 0.2, 0.8), FreeField("1.drag", 0.0, 1000.0))
    sets = [
        _at(0.10, mu_min=0.3, **{"1.drag": 100.0}),
        _at(0.20, mu_min=0.7, **{"1.drag": 100.0}),
        _at(0.30, mu_min=0.3, **{"1.drag": 900.0}),
        _at(0.40, mu_min=0.7, **{"1.drag": 900.0}),
        _at(0.90, mu_min=0.5, **{"1.drag": 500.0}),
    ]
    assert medoid(sets, [0, 1, 2, 3, 4], free) == 4
    # two sets: their summed distances tie, the least objective wins
    assert medoid(sets, [3, 0], free) == 0
    # three corners: the one between the other two (0.8 + 0.667 of the ranges against 1.467)
    assert medoid(sets, [1, 2, 3], free) == 3
    # the scaling: summed raw differences would pick set 1 (301.5 against 591 for set 2);
    # divided by the ranges set 2 is the centre (1.59 against 1.80 and 1.81)
    free = (FreeField("mu_min", 0.0, 1.0), FreeField("1.drag", 0.0, 1000.0))
    sets = [
        _at(0.1, mu_min=0.0, **{"1.drag": 0.0}),
        _at(0.1, mu_min=1.0, **{"1.drag": 10.0}),
        _at(0.1, mu_min=0.5, **{"1.drag": 300.0}),
    ]
    assert medoid(sets, [0, 1, 2], free) == 2


def _staged(objective: float, ks_pvalue: float, stage: str, rr: float) -> dict:
    return {
        "objective": objective,
        "ks_pvalue": ks_pvalue,
        "stage": stage,
        "values": {"rolling_resistance": rr},
    }


def test_the_medoid_is_refined_before_it_is_chosen_and_left_when_the_refined_rocks_reject_it():
    free = (FreeField("rolling_resistance", 0.0, 1.0),)
    # accepted: 0 (refined, 0.1), 2 (design, 0.3), 3 (design, 0.35), 4 (design, 0.5): medoid 2
    sets = [
        _staged(0.10, 0.30, "refined", 0.10),
        _staged(0.05, 0.01, "refined", 0.90),
        _staged(0.40, 0.20, "design", 0.30),
        _staged(0.50, 0.20, "design", 0.35),
        _staged(0.60, 0.20, "design", 0.50),
    ]
    asked: list[list[int]] = []

    def keeps(these):  # the further rounds accept it
        asked.append(these)
        for k in these:
            sets[k]["stage"] = "refined"

    assert choose(sets, free, "medoid", keeps) == 2 and asked == [[2]]
    # the same rule with the objective: the refined set the data accept, least objective first
    assert choose(sets, free, "objective", keeps) == 0

    def rejects(these):
        asked.append(these)
        for k in these:
            sets[k].update(stage="refined", ks_pvalue=0.01)

    sets[2]["stage"] = "design"
    asked.clear()
    # 2 rejected on its new rocks: among 0, 3, 4 the medoid is 3, rejected too; then among 0
    # and 4 the summed distances tie and 0 (refined, least objective) is taken
    assert choose(sets, free, "medoid", rejects) == 0 and asked == [[2], [3]]
    # with no accepted set left: the least objective among every refined set (1: 0.05)
    sets[0]["ks_pvalue"] = sets[4]["ks_pvalue"] = 0.01
    assert choose(sets, free, "medoid", rejects) == 1
