"""Results per release source and rock class (tumble.rockfall.hazard.sources): the statistics of a
group of rocks by hand (fractions of each end, percentiles of the finite values), the checks of
a :class:`Site`, and :meth:`Site.apply` on a hand-built result: per-rock names, per-source and
per-class records, and the zoning of the hand-built case of ``test_zoning.py``."""

import numpy as np
import pytest

from tumble.rockfall.ensemble.counts import exceedance_counts
from tumble.rockfall.ensemble.reduce import EnsembleResult
from tumble.rockfall.hazard.sources import Site, default_site, group_statistics
from tumble.rockfall.hazard.zoning import ENERGY_LEVELS_KJ


def table(status) -> dict[str, np.ndarray]:
    """A per-rock table of ``n = len(status)`` rocks: run-out k + 1 m for rock k (NaN for a
    rock that failed), maximum kinetic energy 2 (k + 1) kJ, speed k + 1 m/s, jump height
    (k + 1) / 10 m, mass 100 (k + 1) kg."""
    status = np.array(status, dtype=object)
    k = np.arange(1.0, status.size + 1.0)
    failed = ~np.isin(status, ["stopped", "left_domain", "timed_out", "caught"])
    return {
        "rock": np.arange(status.size),
        "status": status,
        "runout_m": np.where(failed, np.nan, k),
        "kinetic_energy_max_kJ": 2.0 * k,
        "velocity_max_ms": k,
        "jump_height_max_m": k / 10.0,
        "mass_kg": 100.0 * k,
    }


def test_group_statistics_by_hand():
    """101 rocks: 90 stopped, 6 left the DEM, 3 timed out, 2 failed (the last two, whose run-out
    is NaN). Fractions k / 101; no ``caught`` entry when no rock of the run was caught. Run-out
    over the 99 finite values 1..99: p50 = 50, p95 at position 0.95 * 98 = 93.1 of the sorted
    values, 94 + 0.1 = 94.1, max 99; energy 2, 4, ..., 202 kJ: p50 = 102, p95 = 192, max 202
    (linear interpolation between order statistics). Each 95 % interval holds its estimate.
    To 1e-12."""
    status = ["stopped"] * 90 + ["left_domain"] * 6 + ["timed_out"] * 3 + ["non_finite"] * 2
    rocks = table(status)
    stats = group_statistics(rocks, np.ones(101, dtype=bool))
    expected = {"stopped": 90, "left_domain": 6, "timed_out": 3, "failed": 2}
    assert stats["fractions"] == pytest.approx({k: v / 101 for k, v in expected.items()}, 1e-15)
    runout = stats["runout_m"]
    assert (runout["p50"], runout["max"]) == (50.0, 99.0)
    assert runout["p95"] == pytest.approx(94.1, abs=1e-12)
    energy = stats["kinetic_energy_max_kJ"]
    assert energy["p50"] == pytest.approx(102.0, abs=1e-12)
    assert energy["p95"] == pytest.approx(192.0, abs=1e-12)
    assert energy["max"] == 202.0
    assert set(stats["velocity_max_ms"]) == {"p95", "p95_ci", "max"}
    for column in ("runout_m", "kinetic_energy_max_kJ", "velocity_max_ms", "jump_height_max_m"):
        low, high = stats[column]["p95_ci"]
        assert low <= stats[column]["p95"] <= high


def test_group_statistics_of_a_part_and_of_no_rock():
    """The first 10 rocks (stopped) of a run in which one rock was caught: every fraction 0 but
    stopped (1) and caught present (0); a group without rocks has None everywhere."""
    rocks = table(["stopped"] * 10 + ["caught", "left_domain"])
    part = group_statistics(rocks, np.arange(12) < 10)
    assert part["fractions"] == {
        "stopped": 1.0,
        "left_domain": 0.0,
        "timed_out": 0.0,
        "caught": 0.0,
        "failed": 0.0,
    }
    assert part["runout_m"]["max"] == 10.0
    empty = group_statistics(rocks, np.zeros(12, dtype=bool))
    assert set(empty["fractions"].values()) == {None}
    assert empty["kinetic_energy_max_kJ"] == {
        "p50": None,
        "p50_ci": None,
        "p95": None,
        "p95_ci": None,
        "max": None,
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"class_of": np.zeros(2, dtype=np.int64)}, r"class_of must have one entry per rock \(3\)"),
        ({"source_frequency": (0.1,)}, "source_frequency must have one entry per source"),
        ({"class_share": (0.5, 0.5)}, "class_share must have one entry per class"),
        ({"source_of": np.array([0, 2, 1])}, "source_of must index the 2 names"),
        ({"class_of": np.array([0, -1, 0])}, "class_of must index the 1 names"),
    ],
)
def test_site_refuses_tables_that_do_not_fit(changes, message):
    fields = {
        "source_names": ("north", "south"),
        "source_frequency": (0.1, 0.02),
        "source_of": np.array([0, 1, 1]),
        "class_names": ("blocks",),
        "class_share": (1.0,),
        "class_of": np.zeros(3, dtype=np.int64),
    }
    with pytest.raises(ValueError, match=message):
        Site(**{**fields, **changes})


def test_default_site_is_one_source_without_frequency_and_one_class():
    site = default_site(4, "point", "eota221")
    assert site.source_names == ("point",) and site.class_names == ("eota221",)
    assert site.source_of.tolist() == site.class_of.tolist() == [0, 0, 0, 0]
    assert not site.zoning


def test_apply_adds_names_records_and_the_zoning_of_the_counts():
    """The hand-built zoning case of ``test_zoning.py`` (6 rocks: source 0 with f = 0.2 / year,
    rocks 0..3, source 1 with f = 0.01 / year, rocks 4..5, on a 2 x 3 grid) through a result's
    exceedance counts: the zones [3, 3, 1, 3, 3, 0] computed there by hand. The per-rock columns
    name each rock's source and class; the records count the rocks of each (4 and 2; classes by
    class_of, 3 and 3) with their masses."""
    rock = np.array([0, 1, 2, 4, 4, 5, 3, 5, 5])
    cell = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4])
    energy = np.array([500.0, 400.0, 100.0, 350.0, 20.0, 10.0, 50.0, 40.0, 400.0])
    source = np.array([0, 0, 0, 0, 1, 1])
    counts = exceedance_counts(rock, cell, energy, source, 2, 6, ENERGY_LEVELS_KJ)
    site = Site(
        ("upper", "lower"),
        (0.2, 0.01),
        source,
        ("small", "large"),
        (0.5, 0.5),
        np.array([0, 1, 0, 1, 0, 1]),
    )
    result = EnsembleResult(
        {}, {"reach_probability": np.zeros((2, 3))}, table(["stopped"] * 6), counts=counts
    )
    zoning = site.apply(result)
    assert zoning["hazard_zone"].ravel().tolist() == [3, 3, 1, 3, 3, 0]
    assert result.rocks["source"].tolist() == ["upper"] * 4 + ["lower"] * 2
    assert result.rocks["rock_class"].tolist() == ["small", "large"] * 3
    sources, classes = result.summary["sources"], result.summary["classes"]
    assert [(s["name"], s["rocks"], s["frequency"]) for s in sources] == [
        ("upper", 4, 0.2),
        ("lower", 2, 0.01),
    ]
    assert [(c["name"], c["rocks"], c["rock_fraction"]) for c in classes] == [
        ("small", 3, 0.5),
        ("large", 3, 0.5),
    ]
    # masses 100 (k + 1) kg of rocks 1, 3, 5: p50 400 kg, max 600 kg
    assert classes[1]["mass_kg"]["p50"] == 400.0 and classes[1]["mass_kg"]["max"] == 600.0
    # without counts a zoned site cannot be applied; without frequencies there is no zoning
    bare = EnsembleResult({}, {"reach_probability": np.zeros((2, 3))}, table(["stopped"] * 6))
    with pytest.raises(ValueError, match="the run was not zoned"):
        site.apply(bare)
    unzoned = Site(("upper", "lower"), (0.2, None), source, ("c",), (1.0,), np.zeros(6, int))
    assert unzoned.apply(bare) == {}


def test_exits_per_release_area():
    """Six rocks from two release areas, rocks 1, 2 and 4 left the DEM (2 across the downslope
    edge, 4 into a hole, 1 across a side): the exit table gets each rock's source and class, and
    summary["exits"]["sources"] counts per area with fractions of the area's rocks (area a:
    rocks 0-2, two exits of three; area b: rocks 3-5, one of three). Without release areas no
    per-source counts."""
    status = ["stopped", "left_domain", "left_domain", "stopped", "left_domain", "stopped"]
    exits = {
        "rock": np.array([1, 2, 4]),
        "kind": np.array(["side_edge", "downslope_edge", "nodata_hole"]),
    }
    source_of = np.array([0, 0, 0, 1, 1, 1])
    class_of = np.array([0, 1, 0, 1, 0, 1])
    for areas in (True, False):
        result = EnsembleResult(
            {"exits": {"rocks": 3}},
            {},
            table(status),
            exits={k: v.copy() for k, v in exits.items()},
        )
        site = Site(("a", "b"), (None, None), source_of, ("s", "l"), (0.5, 0.5), class_of, areas)
        site.apply(result)
        assert list(result.exits["source"]) == ["a", "a", "b"]
        assert list(result.exits["rock_class"]) == ["l", "s", "s"]
        if not areas:
            assert "sources" not in result.summary["exits"]
            continue
        a, b = result.summary["exits"]["sources"]
        assert (a["name"], a["rocks"], b["name"], b["rocks"]) == ("a", 3, "b", 3)
        assert a["counts"] == {"downslope_edge": 1, "side_edge": 1, "nodata_hole": 0}
        assert b["counts"] == {"downslope_edge": 0, "side_edge": 0, "nodata_hole": 1}
        assert a["fractions"]["side_edge"] == pytest.approx(1 / 3, rel=1e-15)
        assert b["fractions"]["downslope_edge"] == 0.0
