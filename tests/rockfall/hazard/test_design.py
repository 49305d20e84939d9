"""Barrier statistics and UNI 11211-4 design values (``tumble.rockfall.hazard.design``): the design
values recomputed by hand, only each rock's first downslope crossing counted, percentile-bootstrap
intervals (contain the estimate, reproducible, shrink as 1/sqrt(n)), the probabilities of a net
by hand, the verification flags, a barrier nobody crossed, JSON-ready output."""

import json
from dataclasses import dataclass

import numpy as np
import pytest

from tumble.rockfall.hazard.design import (
    QUANTITIES,
    DesignFactors,
    barrier_statistics,
    first_downslope,
)


@dataclass
class Barrier:
    name: str
    kind: str = "line"
    height: float | None = None
    capacity: float | None = None
    length: float = 50.0


def table(rows: list[dict]) -> dict[str, np.ndarray]:
    """A crossings table from rows; missing columns get harmless defaults."""
    defaults = {
        "t_s": 1.0,
        "x": 0.0,
        "y": 0.0,
        "along_m": 10.0,
        "passing_height_m": 1.0,
        "top_height_m": 1.5,
        "velocity_ms": 10.0,
        "kinetic_energy_kJ": 100.0,
        "rotational_energy_kJ": 5.0,
        "rotational_velocity_rad_s": 3.0,
        "mass_kg": 1000.0,
        "direction": "downslope",
        "outcome": "passed",
    }
    rows = [{**defaults, **row} for row in rows]
    columns = ["rock", "barrier", *defaults]
    out = {}
    for name in columns:
        values = [row[name] for row in rows]
        out[name] = np.array(values, dtype=object if isinstance(values[0], str) else None)
    out["rock"] = out["rock"].astype(np.int64)
    return out


def hundred_rocks(barrier: str = "fence", **extra) -> list[dict]:
    """Rocks 0..99, one downslope crossing each: velocity i+1 m/s, passing height (i+1)/100 m,
    kinetic energy 10 (i+1) kJ, mass 1000 + 10 i kg (largest 1990 kg)."""
    return [
        {
            "rock": i,
            "barrier": barrier,
            "t_s": 2.0 + 0.01 * i,
            "velocity_ms": float(i + 1),
            "passing_height_m": (i + 1) / 100.0,
            "top_height_m": (i + 1) / 100.0 + 0.5,
            "kinetic_energy_kJ": 10.0 * (i + 1),
            "rotational_energy_kJ": 0.1 * (i + 1),
            "mass_kg": 1000.0 + 10.0 * i,
            "along_m": float(i % 50),
            **extra,
        }
        for i in range(100)
    ]


def stats_of(rows, barriers, n_rocks=100, factors=None, seed=7, resamples=1000):
    return barrier_statistics(
        table(rows), barriers, n_rocks, factors or DesignFactors(), seed, resamples
    )


# ---------------------------------------------------------------------------------------------
# design values by hand


def test_design_values_by_hand():
    (s,) = stats_of(hundred_rocks(), [Barrier("fence")])
    assert s["rocks_crossing"] == 100
    assert s["fraction_crossing"] == 1.0
    v = s["velocity_ms"]
    # numpy's linear rule on 1..100: index 0.95 * 99 = 94.05 -> 95 + 0.05 = 95.05
    assert v["p50"] == pytest.approx(50.5)
    assert v["p95"] == pytest.approx(95.05)
    assert v["p99"] == pytest.approx(99.01)
    assert v["max"] == 100.0
    assert s["passing_height_m"]["p95"] == pytest.approx(0.9505)

    d = s["design"]
    assert d["standard"] == "UNI 11211-4"
    assert (d["gamma_tr"], d["gamma_dp"], d["gamma_vol"], d["gamma_gamma"]) == (
        1.10,
        1.10,
        1.10,
        1.00,
    )
    assert d["gamma_e"] == 1.20
    assert d["f_min_m"] == 0.5
    # design block: the largest rock crossing, 1990 kg; m_d = 1990 * 1.1 * 1.0 = 2189 kg
    assert d["mass_kg"] == 1990.0
    assert d["m_d_kg"] == pytest.approx(2189.0)
    # v_d = 95.05 * 1.1 * 1.1 = 115.0105 m/s
    assert d["v_t_ms"] == pytest.approx(95.05)
    assert d["v_d_ms"] == pytest.approx(115.0105)
    # E_d = 2189 * 115.0105^2 / 2 / 1000 = 2189 * 13227.41511025 / 2000 = 14477.4058...
    assert d["E_d_kJ"] == pytest.approx(2189.0 * 13227.41511025 / 2000.0)
    assert d["E_d_kJ"] == pytest.approx(14477.40583816863)
    # h_d = 0.9505 * 1.21 = 1.150105 m; required height = 1.150105 + 0.5
    assert d["h_t_m"] == pytest.approx(0.9505)
    assert d["h_d_m"] == pytest.approx(1.150105)
    assert d["required_height_m"] == pytest.approx(1.650105)
    # a plain line: no verification
    assert d["energy_ok"] is None and d["height_ok"] is None
    assert s["overtopping_probability"] is None
    assert s["capacity_exceedance_probability"] is None


def test_design_factors_and_mass_from_config():
    factors = DesignFactors.from_config(
        {"gamma_tr": 1.02, "gamma_dp": 1.02, "gamma_vol": 1.02, "mass_kg": 5000.0, "f_min_m": 1.0}
    )
    (s,) = stats_of(hundred_rocks(), [Barrier("fence")], factors=factors)
    d = s["design"]
    assert d["mass_kg"] == 5000.0 and d["mass_source"] == "configured"
    assert d["m_d_kg"] == pytest.approx(5100.0)  # 5000 * 1.02 * 1.00
    assert d["v_d_ms"] == pytest.approx(95.05 * 1.0404)  # 98.89002
    assert d["E_d_kJ"] == pytest.approx(0.5 * 5100.0 * 98.89002**2 / 1000.0)
    assert d["h_d_m"] == pytest.approx(0.9505 * 1.0404)
    assert d["required_height_m"] == pytest.approx(0.9505 * 1.0404 + 1.0)


def test_design_intervals_are_the_design_values_at_the_ends():
    (s,) = stats_of(hundred_rocks(), [Barrier("fence")])
    d = s["design"]
    low, high = s["velocity_ms"]["p95_ci"]
    assert d["v_d_ci_ms"] == pytest.approx([low * 1.21, high * 1.21])
    assert d["E_d_ci_kJ"] == pytest.approx(
        [0.5 * 2189.0 * (low * 1.21) ** 2 / 1000.0, 0.5 * 2189.0 * (high * 1.21) ** 2 / 1000.0]
    )
    assert d["E_d_ci_kJ"][0] <= d["E_d_kJ"] <= d["E_d_ci_kJ"][1]


def test_onr_characteristic_values():
    (s,) = stats_of(hundred_rocks(), [Barrier("fence")])
    onr = s["onr_24810"]
    assert onr["kinetic_energy_kJ"]["p95"] == pytest.approx(950.5)
    assert onr["kinetic_energy_kJ"]["p99"] == pytest.approx(990.1)
    assert onr["velocity_ms"]["p99"] == pytest.approx(99.01)
    assert onr["passing_height_m"]["p95"] == pytest.approx(0.9505)
    assert onr["velocity_ms"]["p95_ci"] == s["velocity_ms"]["p95_ci"]


# ---------------------------------------------------------------------------------------------
# which crossings count


def test_only_the_first_downslope_crossing_of_each_rock_counts():
    rows = [
        # rock 0: down at t = 1 (counts), up at 2, down again at 3 (with other values); the
        # later downslope row comes first in the table
        {"rock": 0, "barrier": "fence", "t_s": 3.0, "velocity_ms": 99.0},
        {"rock": 0, "barrier": "fence", "t_s": 1.0, "velocity_ms": 4.0},
        {"rock": 0, "barrier": "fence", "t_s": 2.0, "velocity_ms": 50.0, "direction": "upslope"},
        # rock 1: one downslope crossing
        {"rock": 1, "barrier": "fence", "t_s": 1.5, "velocity_ms": 6.0},
        # rock 2: an upslope crossing only: does not count
        {"rock": 2, "barrier": "fence", "t_s": 1.0, "velocity_ms": 80.0, "direction": "upslope"},
        # rock 3: crosses another barrier only
        {"rock": 3, "barrier": "other", "t_s": 1.0, "velocity_ms": 70.0},
    ]
    crossings = table(rows)
    assert first_downslope(crossings, "fence").tolist() == [1, 3]
    s, other = barrier_statistics(
        crossings, [Barrier("fence"), Barrier("other")], 4, DesignFactors(), 1
    )
    assert s["rocks_crossing"] == 2
    assert s["fraction_crossing"] == 0.5
    assert s["velocity_ms"]["max"] == 6.0
    assert s["velocity_ms"]["p50"] == pytest.approx(5.0)
    assert other["rocks_crossing"] == 1
    assert other["velocity_ms"]["p95"] == 70.0
    # both directions are counted beside the design sample: 3 rows down (rock 0 twice, rock 1),
    # 2 up (rocks 0 and 2)
    assert (s["crossings_downslope"], s["crossings_upslope"]) == (3, 2)
    assert s["rocks_crossing_upslope"] == 2
    assert (other["crossings_downslope"], other["crossings_upslope"]) == (1, 0)
    assert other["rocks_crossing_upslope"] == 0
    # a barrier without a side attribute reports None; the sides given are merged in
    assert s["uphill"] is None
    side = {"uphill": "left", "uphill_from": "release", "release_share_uphill": 1.0}
    s, other = barrier_statistics(
        crossings, [Barrier("fence"), Barrier("other")], 4, DesignFactors(), 1, sides=[side, None]
    )
    assert {k: s[k] for k in side} == side and other["uphill"] is None


def test_more_crossing_rocks_than_released_is_an_error():
    with pytest.raises(ValueError, match="n_rocks"):
        stats_of(hundred_rocks(), [Barrier("fence")], n_rocks=50)


# ---------------------------------------------------------------------------------------------
# bootstrap intervals


def sample_rows(n: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    v = rng.normal(20.0, 4.0, n)
    return [
        {"rock": i, "barrier": "fence", "velocity_ms": float(v[i]), "kinetic_energy_kJ": 50.0 + i}
        for i in range(n)
    ]


def test_intervals_contain_the_estimate_and_are_reproducible():
    rows = sample_rows(400, 3)
    (a,) = stats_of(rows, [Barrier("fence")], n_rocks=400, seed=11)
    (b,) = stats_of(rows, [Barrier("fence")], n_rocks=400, seed=11)
    (c,) = stats_of(rows, [Barrier("fence")], n_rocks=400, seed=12)
    for q in QUANTITIES:
        for p in ("p95", "p99"):
            low, high = a[q][f"{p}_ci"]
            assert low <= a[q][p] <= high, (q, p)
            assert a[q][f"{p}_ci"] == b[q][f"{p}_ci"]
    assert a["velocity_ms"]["p95_ci"] != c["velocity_ms"]["p95_ci"]
    assert a["bootstrap"] == {
        "method": "percentile bootstrap over the crossing rocks",
        "resamples": 1000,
        "seed": 11,
        "level": 0.95,
    }


def test_a_barrier_intervals_do_not_depend_on_other_barriers():
    rows = sample_rows(300, 5)
    (alone,) = stats_of(rows, [Barrier("fence")], n_rocks=300)
    extra = [{**row, "barrier": "upper"} for row in sample_rows(120, 6)]
    _, together = stats_of(extra + rows, [Barrier("upper"), Barrier("fence")], n_rocks=300)
    assert together["velocity_ms"] == alone["velocity_ms"]


def test_interval_width_shrinks_as_one_over_sqrt_n():
    # the width from one sample of 200 scatters (its tail decides it): the mean over 5
    # independent samples of each size, all from the same normal distribution
    widths = {}
    for n in (200, 3200):
        total = 0.0
        for k in range(5):
            (s,) = stats_of(sample_rows(n, 100 * n + k), [Barrier("fence")], n_rocks=n, seed=4)
            low, high = s["velocity_ms"]["p95_ci"]
            total += high - low
        widths[n] = total / 5
    # sqrt(3200 / 200) = 4
    assert 2.5 <= widths[200] / widths[3200] <= 6.0


def test_fewer_than_1000_resamples_is_an_error():
    with pytest.raises(ValueError, match="at least 1000"):
        stats_of(hundred_rocks(), [Barrier("fence")], resamples=999)


# ---------------------------------------------------------------------------------------------
# nets


def test_net_probabilities_by_hand():
    rows = hundred_rocks()
    # passing heights 0.01..1.00 m: above 0.9 m are 0.91..1.00, 10 of 100;
    # energies 10..1000 kJ: above 500 kJ are 510..1000, 50 of 100 (500 itself is not above)
    net = Barrier("fence", kind="net", height=0.9, capacity=500.0)
    (s,) = stats_of(rows, [net])
    assert s["overtopping_probability"] == pytest.approx(0.10)
    assert s["capacity_exceedance_probability"] == pytest.approx(0.50)
    assert s["height_m"] == 0.9 and s["capacity_kJ"] == 500.0


def test_net_without_height_or_capacity():
    (s,) = stats_of(hundred_rocks(), [Barrier("fence", kind="net", capacity=500.0)])
    assert s["overtopping_probability"] is None
    assert s["capacity_exceedance_probability"] == pytest.approx(0.5)
    assert s["design"]["height_ok"] is None


def test_outcome_counts():
    rows = hundred_rocks()
    for i in range(10):
        rows[i]["outcome"] = "caught"
    rows[10]["outcome"] = "overtopped"
    rows[11]["outcome"] = "broke_through"
    # an upslope crossing's outcome is not counted
    rows.append({"rock": 5, "barrier": "fence", "t_s": 9.0, "direction": "upslope"})
    (s,) = stats_of(rows, [Barrier("fence", kind="net", height=3.0, capacity=1e4)])
    assert s["outcomes"] == {"passed": 88, "caught": 10, "overtopped": 1, "broke_through": 1}


@pytest.mark.parametrize(
    ("capacity", "height", "energy_ok", "height_ok"),
    [
        # E_d = 14477.41 kJ; capacity / 1.2: 20000 -> 16666.7 (ok), 15000 -> 12500 (not ok);
        # required height 1.650105 m: 2.0 ok, 1.6 not ok
        (20000.0, 2.0, True, True),
        (15000.0, 1.6, False, False),
    ],
)
def test_verification_flags(capacity, height, energy_ok, height_ok):
    net = Barrier("fence", kind="net", height=height, capacity=capacity)
    (s,) = stats_of(hundred_rocks(), [net])
    d = s["design"]
    assert d["capacity_kJ"] == capacity
    assert d["capacity_design_kJ"] == pytest.approx(capacity / 1.2)
    assert d["energy_ok"] is energy_ok
    assert d["height_m"] == height
    assert d["height_ok"] is height_ok


def test_gamma_e_is_a_user_input():
    # with gamma_E = 1.0 (a SEL), 15000 kJ >= 14477.4 kJ passes
    net = Barrier("fence", kind="net", height=2.0, capacity=15000.0)
    (s,) = stats_of(hundred_rocks(), [net], factors=DesignFactors(gamma_e=1.0))
    assert s["design"]["energy_ok"] is True


# ---------------------------------------------------------------------------------------------
# empty barriers, JSON, validation


def test_a_barrier_nobody_crossed():
    rows = hundred_rocks()
    net = Barrier("lower net", kind="net", height=4.0, capacity=1000.0)
    fence, lower = stats_of(rows, [Barrier("fence"), net])
    assert fence["rocks_crossing"] == 100
    assert lower["rocks_crossing"] == 0
    assert lower["fraction_crossing"] == 0.0
    for q in QUANTITIES:
        assert set(lower[q].values()) == {None}
    assert lower["overtopping_probability"] is None
    assert lower["capacity_exceedance_probability"] is None
    assert lower["outcomes"] == {"passed": 0, "caught": 0, "overtopped": 0, "broke_through": 0}
    d = lower["design"]
    assert d["E_d_kJ"] is None and d["h_d_m"] is None and d["mass_kg"] is None
    assert d["energy_ok"] is None and d["height_ok"] is None
    assert d["capacity_design_kJ"] == pytest.approx(1000.0 / 1.2)
    text = json.dumps(lower, allow_nan=False)
    assert "NaN" not in text


def test_an_empty_table():
    crossings = {name: np.empty(0) for name in table(hundred_rocks())}
    (s,) = barrier_statistics(crossings, [Barrier("fence")], 10, DesignFactors(), 0)
    assert s["rocks_crossing"] == 0
    json.dumps(s, allow_nan=False)


def test_output_is_json_ready():
    net = Barrier("fence", kind="net", height=2.0, capacity=20000.0)
    result = stats_of(hundred_rocks(), [net, Barrier("nobody")])
    back = json.loads(json.dumps(result, allow_nan=False))
    assert back == result

    def plain(value):
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or type(value) in (bool, int, float, str)

    assert plain(result)


@pytest.mark.parametrize(
    ("section", "match"),
    [
        ({"gamma_tr": 0.0}, "gamma_tr"),
        ({"gamma_dp": float("nan")}, "gamma_dp"),
        ({"gamma_e": -1.2}, "gamma_e"),
        ({"f_min_m": float("inf")}, "f_min_m"),
        ({"mass_kg": "heavy"}, "mass_kg"),
        ({"gamma_tr": True}, "gamma_tr"),
        ({"gamma_x": 1.0}, "unknown keys"),
    ],
)
def test_invalid_design_factors(section, match):
    with pytest.raises(ValueError, match=match):
        DesignFactors.from_config(section)


def test_design_factors_defaults():
    assert DesignFactors.from_config(None) == DesignFactors()
    assert DesignFactors.from_config({"gamma_tr": None, "mass_kg": None}) == DesignFactors()
    factors = DesignFactors.from_config({"gamma_tr": 1.02, "gamma_e": 1})
    assert factors.gamma_tr == 1.02 and factors.gamma_dp == 1.10
    assert isinstance(factors.gamma_e, float) and factors.gamma_e == 1.0


def test_invalid_crossings():
    crossings = table(hundred_rocks())
    del crossings["along_m"]
    with pytest.raises(ValueError, match="along_m"):
        barrier_statistics(crossings, [Barrier("fence")], 100, DesignFactors(), 0)
    rows = hundred_rocks()
    rows[3]["direction"] = "sideways"
    with pytest.raises(ValueError, match="direction"):
        stats_of(rows, [Barrier("fence")])
    rows = hundred_rocks()
    rows[3]["velocity_ms"] = float("nan")
    with pytest.raises(ValueError, match="velocity_ms"):
        stats_of(rows, [Barrier("fence")])
    with pytest.raises(ValueError, match="kind"):
        stats_of(hundred_rocks(), [Barrier("fence", kind="wall")])
    with pytest.raises(ValueError, match="unique"):
        stats_of(hundred_rocks(), [Barrier("fence"), Barrier("fence")])
