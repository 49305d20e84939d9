"""Per-rock soil parameters drawn from a category's spread: the draws follow the stated
distribution, do not depend on which rocks are drawn together, leave the release streams alone,
and every catalogue entry says where its values and its spread come from."""

import math

import numpy as np
import pytest
from scipy import stats

from tumble.rockfall.release import rock_rng
from tumble.rockfall.site.soil_uncertainty import (
    N_UNIFORMS,
    check_mode,
    describe,
    draw_values,
    set_index,
    soil_uniforms,
)
from tumble.rockfall.soil import CATALOGUE, FIELDS, UNSOURCED, SoilPreset

N = 4000


def test_category_draws_are_uniform_on_the_stated_range():
    preset = CATALOGUE["medium"]
    low, high = preset.spread["scar_strength"]
    drawn = draw_values(preset, "category", soil_uniforms(11, N))
    me = drawn[:, FIELDS.index("scar_strength")]
    assert low <= me.min() and me.max() <= high
    # mean within 4 standard errors of (low + high) / 2, sd within 5 % of (high - low) / sqrt 12
    sd = (high - low) / math.sqrt(12.0)
    assert abs(me.mean() - 0.5 * (low + high)) < 4.0 * sd / math.sqrt(N)
    assert me.std() == pytest.approx(sd, rel=0.05)
    # KS against U(low, high): a right distribution fails at 1e-3 once in a thousand
    assert stats.kstest(me, stats.uniform(loc=low, scale=high - low).cdf).pvalue > 1e-3
    # the fields without a spread keep the category's values exactly
    for j, name in enumerate(FIELDS):
        if name != "scar_strength":
            assert np.all(drawn[:, j] == preset.values.get(name, 0.0)), name


def test_set_draws_pick_each_equivalent_set_with_equal_probability():
    preset = CATALOGUE["authume_vegetated"]
    n_sets = len(preset.sets)
    drawn = draw_values(preset, "sets", soil_uniforms(5, N))
    rows = np.array([[s.get(f, 0.0) for f in FIELDS] for s in preset.sets])
    # every rock's parameters are exactly one of the sets
    which = [np.flatnonzero(np.all(rows == d, axis=1)) for d in drawn]
    assert all(w.size >= 1 for w in which)
    counts = np.bincount(set_index(soil_uniforms(5, N)[:, 0], n_sets), minlength=n_sets)
    assert stats.chisquare(counts).pvalue > 1e-3
    assert counts.sum() == N


def test_set_index_is_floor_of_u_times_n():
    assert set_index(np.array([0.0, 0.2499, 0.25, 0.99999, 1.0]), 4).tolist() == [0, 0, 1, 3, 3]


def test_a_soil_map_s_classes_draw_parts_of_one_combined_calibration_set():
    """medium, authume_vegetated and authume_rocky with uncertainty 'sets' in one soil map:
    every rock's three drawn sets are the parts of one of the Authume calibration's six combined
    sets (CALIBRATION_EQUIVALENT: the first stage's Me and vegetated friction factor, the second
    stage's Red mu_r), each combined set with probability 1/6 (chi-square), so medium has
    Me 15 MN/m^2 in 2/3 of the rocks, as two of the three equivalent sets do."""
    from tumble.validation.authume.soils import CALIBRATION_EQUIVALENT

    u = soil_uniforms(9, N)
    parts = {}
    for name in ("medium", "authume_vegetated", "authume_rocky"):
        drawn = draw_values(CATALOGUE[name], "sets", u)
        parts[name] = {f: drawn[:, FIELDS.index(f)] for f in FIELDS}
    combined = [
        (p.scar_strength, p.vegetated_friction, p.rocky_rolling_resistance)
        for p in CALIBRATION_EQUIVALENT
    ]
    base_mu = CATALOGUE["authume_vegetated"].values["mu_min"] / 1.5  # factor 1.5 of the best
    seen = list(
        zip(
            parts["medium"]["scar_strength"].tolist(),
            (parts["authume_vegetated"]["mu_min"] / base_mu).round(9).tolist(),
            parts["authume_rocky"]["rolling_resistance"].tolist(),
            strict=True,
        )
    )
    # the vegetated class's Me agrees with medium's in every rock
    assert np.array_equal(
        parts["authume_vegetated"]["scar_strength"], parts["medium"]["scar_strength"]
    )
    counts = np.array([seen.count(c) for c in combined])
    assert counts.sum() == N  # every rock's draw is one combined set
    assert stats.chisquare(counts).pvalue > 1e-3
    share = np.mean(parts["medium"]["scar_strength"] == 15000.0)
    assert abs(share - 2.0 / 3.0) < 4.0 * math.sqrt(2.0 / 9.0 / N)


def test_set_index_of_a_calibration_s_combined_sets():
    # 6 combined sets; a preset of 3 sets with stride 2 takes floor(3 u), one of 2 sets with
    # stride 1 takes floor(6 u) mod 2
    u = np.array([0.0, 0.1, 0.2, 0.34, 0.5, 0.67, 0.84, 0.99999])
    assert set_index(u, 3, stride=2, joint=6).tolist() == np.floor(3 * u).astype(int).tolist()
    assert set_index(u, 2, joint=6).tolist() == (np.floor(6 * u).astype(int) % 2).tolist()


def test_draws_do_not_depend_on_which_rocks_are_drawn_together():
    whole = soil_uniforms(3, 50)
    assert whole.shape == (50, N_UNIFORMS)
    assert np.array_equal(soil_uniforms(3, np.array([7, 8, 9])), whole[7:10])
    assert np.array_equal(soil_uniforms(3, np.array([42])), whole[42:43])
    assert not np.array_equal(soil_uniforms(4, 50), whole)


def test_the_soil_stream_is_not_the_release_stream():
    # the release stream of rock k starts as before; the soil stream is another child
    assert rock_rng(3, 7).random() != soil_uniforms(3, np.array([7]))[0, 0]


def test_modes_a_category_cannot_draw_are_refused():
    with pytest.raises(ValueError, match="no published spread"):
        check_mode(CATALOGUE["lu2019"], "lu2019", "category")
    with pytest.raises(ValueError, match="no equivalent parameter sets"):
        check_mode(CATALOGUE["lu2019"], "lu2019", "sets")
    with pytest.raises(ValueError, match="unknown soil uncertainty 'wide'"):
        check_mode(CATALOGUE["medium"], "medium", "wide")
    check_mode(CATALOGUE["authume_vegetated"], "authume_vegetated", "sets")


def test_every_catalogue_entry_has_a_source_and_every_spread_its_own():
    for name, preset in CATALOGUE.items():
        assert preset.source.strip(), name
        assert preset.use.strip(), name
        if preset.spread or preset.sets:
            assert preset.spread_source.strip(), name
        for low, high in preset.spread.values():
            assert 0.0 <= low <= high
    assert any("RAMMS" in what for what in UNSOURCED)
    with pytest.raises(ValueError, match="needs its source"):
        SoilPreset({"mu_min": 0.5}, "a paper", "a use", spread={"mu_min": (0.4, 0.6)})


def test_the_summary_names_mode_category_and_spread():
    out = describe({"soil": ("medium", "category")})
    assert out["mode"] == "category"
    assert out["categories"]["soil"]["uniform"] == {"scar_strength": [15000.0, 60000.0]}
    mixed = describe({"class 1": ("authume_vegetated", "sets"), "class 2": ("medium", "none")})
    assert mixed["mode"] == "sets" and list(mixed["categories"]) == ["class 1"]
    assert mixed["categories"]["class 1"]["sets"] == 3
    assert describe({"soil": ("medium", "none")}) == {"mode": "none", "categories": {}}
