""":mod:`tumble.rockfall.soil` against hand values: the slippage-dependent friction law
``mu(s) = mu_min + (2/pi)(mu_max - mu_min) atan(kappa s)`` (L14 eq. 46-47), the published
parameter sets of physics/rockfall_model.md, the packed kernel layout and input validation."""

import math

import numpy as np
import pytest

from tumble.rockfall.soil import (
    BETA,
    CATALOGUE,
    COLLISION_FROUDE,
    DRAG,
    DRAG_HEIGHT,
    DRAG_TORQUE,
    FIELDS,
    KAPPA,
    MU_MAX,
    MU_MIN,
    PRESETS,
    RESTITUTION,
    ROLLING,
    SCAR_CS,
    SCAR_STRENGTH,
    Soil,
)
from tumble.rockfall.soil_classes import ROCKYFOR3D_TYPES, STONE_CLASSES
from tumble.rockfall.soil_statics import holding_angle, holding_slippage, tipping_angle


def test_friction_at_zero_slippage_is_mu_min():
    """atan(0) = 0: mu(0) = mu_min = 0.55 exactly."""
    soil = Soil(mu_min=0.55, mu_max=2.0, kappa=3.0, beta=185.0)
    assert soil.mu(0.0) == 0.55


def test_friction_at_one_over_kappa_is_the_midpoint():
    """atan(kappa / kappa) = pi/4, so mu(1/kappa) = mu_min + (mu_max - mu_min)/2
    = (0.55 + 2.0) / 2 = 1.275; tolerance 1e-15."""
    soil = Soil(mu_min=0.55, mu_max=2.0, kappa=3.0, beta=185.0)
    assert soil.mu(1.0 / 3.0) == pytest.approx(1.275, abs=1e-15)


def test_friction_tends_to_mu_max():
    """atan(x) = pi/2 - 1/x + O(x^-3): mu(s) = mu_max - (2/pi)(mu_max - mu_min)/(kappa s) + ...;
    at s = 1e6 m that is 2.0 - (2/pi)(1.45)/3e6 = 2.0 - 3.08e-7 (to 1e-15), and mu(1e300) =
    mu_max to round-off (1e-15)."""
    soil = Soil(mu_min=0.55, mu_max=2.0, kappa=3.0, beta=185.0)
    expected = 2.0 - (2.0 / math.pi) * 1.45 / 3e6
    assert soil.mu(1e6) == pytest.approx(expected, abs=1e-15)
    assert soil.mu(1e300) == pytest.approx(2.0, abs=1e-15)


def test_friction_is_vectorised_and_increasing():
    """Arrays in, arrays out, elementwise equal to the scalar law; mu grows strictly with s."""
    soil = Soil.preset("l14_scarring")
    s = np.array([0.0, 0.1, 1.0, 3.0, 10.0])
    mu = soil.mu(s)
    expected = [0.2 + (2.0 / math.pi) * 1.1 * math.atan(0.7 * v) for v in s]
    np.testing.assert_allclose(mu, expected, rtol=1e-15)
    assert np.all(np.diff(mu) > 0.0)


def test_l14_sliding_ends_where_mu_reaches_one():
    """L14 section 5.1: with mu_min 0.2, mu_max 1.3, kappa 0.7 a two-point slide on a 45 deg
    slope stops when mu(s) = tan 45 = 1: 0.2 + (2/pi) 1.1 atan(0.7 s) = 1, atan(0.7 s) =
    0.8 pi / 2.2, s = tan(1.14240) / 0.7 = 2.18969 / 0.7 = 3.128 m (published as 3.12 m, so
    compared to 0.01 m); mu at that slippage is 1 to 1e-14."""
    soil = Soil.preset("l14_scarring")
    s_stop = math.tan(0.8 * math.pi / 2.2) / 0.7
    assert s_stop == pytest.approx(3.12, abs=0.01)
    assert soil.mu(s_stop) == pytest.approx(1.0, abs=1e-14)


def test_coulomb_soil_has_constant_friction():
    """mu_min = mu_max: the atan term vanishes, mu(s) = 0.6 for every s (exactly)."""
    soil = Soil.coulomb(0.6, restitution=0.3)
    assert np.all(soil.mu(np.array([0.0, 1.0, 1e9])) == 0.6)
    assert soil.restitution == 0.3


# Published table (physics/rockfall_model.md, "Published parameter sets"):
# source               mu_min mu_max kappa beta eps_N
# L14 5.1              0.2    1.3    0.7   20   0
# Lu19 (Bartelt 2016)  0.55   2.0    3     185  0
PUBLISHED = {
    "l14_scarring": {"mu_min": 0.2, "mu_max": 1.3, "kappa": 0.7, "beta": 20.0, "restitution": 0.0},
    # Lu 2019 with their scar layer: soil strength Me = 15 MN/m^2 (in kN/m^2) and C_s = 1.5
    "medium": {
        "mu_min": 0.55,
        "mu_max": 2.0,
        "kappa": 3.0,
        "beta": 185.0,
        "restitution": 0.0,
        "scar_strength": 15000.0,
        "scar_cs": 1.5,
    },
    # the same, released as a category of its own before it was merged into medium
    "medium_scar": {
        "mu_min": 0.55,
        "mu_max": 2.0,
        "kappa": 3.0,
        "beta": 185.0,
        "restitution": 0.0,
        "scar_strength": 15000.0,
        "scar_cs": 1.5,
    },
    # the same published set without rolling resistance (Leine et al. 2021's model)
    "lu2019": {"mu_min": 0.55, "mu_max": 2.0, "kappa": 3.0, "beta": 185.0, "restitution": 0.0},
    # L14 section 5.2: mu = 10, no slip (no slippage dependence)
    "l14_wheel": {"mu_min": 10.0, "mu_max": 10.0, "kappa": 0.0, "beta": 0.0, "restitution": 0.0},
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_presets_match_the_published_table(name):
    """Each preset equals its row of the published table exactly (the numbers are typed from
    physics/rockfall_model.md, not read from the module), with no drag layer."""
    soil = Soil.preset(name)
    for field, value in PUBLISHED[name].items():
        assert getattr(soil, field) == value, field
    assert soil.drag == soil.drag_torque == soil.drag_height == 0.0


#: presets calibrated inside the project, checked against the calibration's table in
#: tests/validation/test_authume_soil_categories.py
CALIBRATED = {
    "authume_vegetated",
    "authume_hard",
    "authume_rocky",
    "authume_vegetated_joint",
    "authume_rocky_joint",
}


def test_preset_names_are_those_of_the_table():
    """The published sets, the calibrations, and the terrain classes of STONE and Rockyfor3D
    (their values in tests/rockfall/test_soil_classes.py)."""
    classes = set(STONE_CLASSES) | set(ROCKYFOR3D_TYPES)
    assert set(PRESETS) == set(PUBLISHED) | CALIBRATED | classes


def test_rolling_resistance_and_spread_of_the_presets():
    """The default soil carries the rolling resistance of the Authume calibration (0.1, which
    every equivalent set has) and the spread of the soil strength its equivalent sets give on
    the soil zone (Lu et al.'s 15 MN/m^2 and 60 MN/m^2); every published set has no rolling
    resistance."""
    assert Soil.preset("medium").rolling_resistance == 0.1
    assert CATALOGUE["medium"].spread == {"scar_strength": (15000.0, 60000.0)}
    # the soil zone's Me of the three equivalent sets, in the calibration's order
    assert [s["scar_strength"] for s in CATALOGUE["medium"].sets] == [15000.0, 15000.0, 60000.0]
    assert all(s["rolling_resistance"] == 0.1 for s in CATALOGUE["medium"].sets)
    for name in ("lu2019", "l14_scarring", "l14_wheel"):
        assert Soil.preset(name).rolling_resistance == 0.0, name


def test_preset_overrides_and_unknown_name():
    """An override replaces one field and keeps the rest; an unknown name is refused; a retired
    name still resolves (a released name keeps its numbers: test_released_soils.py)."""
    soil = Soil.preset("medium", restitution=0.25)
    assert (soil.restitution, soil.mu_min, soil.kappa) == (0.25, 0.55, 3.0)
    with pytest.raises(ValueError, match="preset 'hard'"):
        Soil.preset("hard")
    assert Soil.preset("medium_scar").scar_strength == 15000.0


def test_field_indices_follow_fields():
    """The index constants, which the kernels import, name the positions of FIELDS (the packed
    layout), every field once."""
    indices = (
        MU_MIN,
        MU_MAX,
        KAPPA,
        BETA,
        RESTITUTION,
        DRAG,
        DRAG_TORQUE,
        DRAG_HEIGHT,
        ROLLING,
        SCAR_STRENGTH,
        SCAR_CS,
        COLLISION_FROUDE,
    )
    assert sorted(indices) == list(range(len(FIELDS)))
    assert [FIELDS[j] for j in indices] == [
        "mu_min",
        "mu_max",
        "kappa",
        "beta",
        "restitution",
        "drag",
        "drag_torque",
        "drag_height",
        "rolling_resistance",
        "scar_strength",
        "scar_cs",
        "collision_froude",
    ]


def test_pack_all_constants():
    """All constants: values in FIELDS order, every index -1, an empty (0, 2, 2) raster stack."""
    soil = Soil(
        mu_min=0.3,
        mu_max=0.9,
        kappa=2.0,
        beta=50.0,
        restitution=0.1,
        drag=4.0,
        drag_torque=5.0,
        drag_height=6.0,
        rolling_resistance=0.07,
        scar_strength=8000.0,
        scar_cs=1.2,
        collision_froude=1.0,
    )
    values, index, rasters = soil.pack((4, 5))
    np.testing.assert_array_equal(
        values, [0.3, 0.9, 2.0, 50.0, 0.1, 4.0, 5.0, 6.0, 0.07, 8000.0, 1.2, 1.0]
    )
    np.testing.assert_array_equal(index, [-1] * 12)
    assert index.dtype == np.int64
    assert rasters.shape == (0, 2, 2)


def test_pack_rasters_get_indices_in_field_order():
    """mu_max and beta as rasters (given in the reverse order of FIELDS): mu_max is field 1 and
    beta field 3, so the stack holds mu_max first (index[1] = 0), then beta (index[3] = 1);
    every other index is -1 with its constant in values; raster slots of values stay 0."""
    shape = (3, 4)
    mu_max = np.full(shape, 1.5)
    mu_max[1, 2] = 1.8
    beta = np.arange(12.0).reshape(shape) + 10.0
    soil = Soil(beta=beta, mu_max=mu_max, mu_min=0.4, kappa=1.0, restitution=0.2)
    assert soil.rasters == ("mu_max", "beta")
    values, index, rasters = soil.pack(shape)
    np.testing.assert_array_equal(index, [-1, 0, -1, 1] + [-1] * 8)
    np.testing.assert_array_equal(values, [0.4, 0.0, 1.0, 0.0, 0.2] + [0.0] * 7)
    assert rasters.shape == (2, *shape)
    np.testing.assert_array_equal(rasters[index[MU_MAX]], mu_max)
    np.testing.assert_array_equal(rasters[index[BETA]], beta)


def test_pack_refuses_a_raster_of_another_shape():
    soil = Soil(mu_min=0.4, mu_max=np.full((3, 4), 1.0), kappa=1.0, beta=1.0)
    with pytest.raises(ValueError, match="mu_max raster has shape"):
        soil.pack((4, 3))


def test_mu_needs_constant_friction_fields():
    soil = Soil(mu_min=0.4, mu_max=np.full((3, 4), 1.0), kappa=1.0, beta=1.0)
    with pytest.raises(ValueError, match="constant mu_min, mu_max and kappa"):
        soil.mu(1.0)


BASE = {"mu_min": 0.3, "mu_max": 0.9, "kappa": 2.0, "beta": 50.0}


@pytest.mark.parametrize("field", FIELDS)
def test_negative_values_are_refused_naming_the_field(field):
    values = {**BASE, field: -0.1}
    if field == "mu_max":
        values["mu_min"] = 0.0  # mu_min valid, so the first fault found is mu_max < 0
    with pytest.raises(ValueError, match=rf"soil {field} must not be negative"):
        Soil(**values)


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_values_are_refused_naming_the_field(field, bad):
    with pytest.raises(ValueError, match=rf"soil {field} must be finite"):
        Soil(**{**BASE, field: bad})


def test_nan_in_a_raster_is_refused_naming_the_field():
    kappa = np.full((3, 3), 1.0)
    kappa[1, 1] = np.nan
    with pytest.raises(ValueError, match="soil kappa raster contains NaN"):
        Soil(**{**BASE, "kappa": kappa})


def test_mu_min_above_mu_max_is_refused():
    with pytest.raises(ValueError, match=r"mu_max must be at least mu_min.*mu_min=1\.0"):
        Soil(**{**BASE, "mu_min": 1.0, "mu_max": 0.5})


def test_mu_min_above_mu_max_in_one_raster_cell_is_refused():
    mu_min = np.full((3, 3), 0.5)
    mu_min[2, 0] = 0.95  # above the constant mu_max 0.9 in one cell only
    with pytest.raises(ValueError, match="mu_max must be at least mu_min"):
        Soil(**{**BASE, "mu_min": mu_min})


def test_restitution_above_one_is_refused():
    with pytest.raises(ValueError, match="restitution must lie in"):
        Soil(**BASE, restitution=1.01)


def test_rasters_of_different_shapes_are_refused():
    with pytest.raises(ValueError, match="same shape"):
        Soil(**{**BASE, "mu_max": np.ones((3, 3)), "beta": np.ones((3, 4))})


def test_soil_rasters_are_read_only():
    """A stored raster cannot be written through the soil (the packed model must not change
    under a running ensemble)."""
    soil = Soil(**{**BASE, "beta": np.ones((2, 2))})
    assert not soil.beta.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        soil.beta[0, 0] = 3.0


def test_soil_raster_is_independent_of_the_callers_array():
    """After ``Soil(beta=view)`` with ``view = base[:, :]``, writing ``base[0, 0] = 7`` must leave
    soil.beta[0, 0] = 1 (and the caller's arrays stay writable)."""
    base = np.ones((2, 2))
    view = base[:, :]
    soil = Soil(**{**BASE, "beta": view})
    base[0, 0] = 7.0
    assert soil.beta[0, 0] == 1.0
    assert view.flags.writeable


def test_holding_slippage_of_the_l14_check():
    """L14 section 5.1 (physics/rockfall_model.md): mu_min 0.2, mu_max 1.3, kappa 0.7 1/m hold a
    rock sliding down 45 degrees (tan = 1) after s* = tan(0.8 pi / 2.2) / 0.7 = 2.18970 / 0.7
    = 3.1281 m (hand value to 1e-4 m), and mu(s*) = tan 45 = 1 to round-off (1e-12)."""
    soil = Soil.preset("l14_scarring")
    s_star = soil.holding_slippage(45.0)
    assert s_star == pytest.approx(3.1281, abs=1e-4)
    assert soil.mu(s_star) == pytest.approx(1.0, abs=1e-12)
    assert soil.holds(45.0)


def test_holding_slippage_of_lu2019_on_40_degrees():
    """Lu et al. 2019 (0.55, 2.0, 3 1/m) on 40 degrees: (tan 40 - 0.55) / 1.45 = 0.28910 / 1.45
    = 0.199379; tan(0.199379 pi / 2) = tan(0.313184) = 0.323842; / 3 = 0.107947 m (hand value
    to 1e-5 m). The same law in medium and authume_rocky (mu_r changes nothing here)."""
    for name in ("lu2019", "medium", "authume_rocky"):
        assert Soil.preset(name).holding_slippage(40.0) == pytest.approx(0.107947, abs=1e-5)


@pytest.mark.parametrize("slope", [35.0, 40.0, 45.0])
def test_authume_hard_never_holds_a_sliding_rock_on_35_to_45_degrees(slope):
    """authume_hard: mu_max = 0.3 x 2.0 = 0.6 < tan 31 deg = 0.601 < tan 35 = 0.700: mu(s) never
    reaches tan(slope), s* = inf."""
    soil = Soil.preset("authume_hard")
    assert soil.mu_max == pytest.approx(0.6, abs=1e-15)
    assert soil.holding_slippage(slope) == math.inf
    assert not soil.holds(slope)


def test_holding_slippage_when_friction_already_holds():
    """mu_min >= tan(slope) holds at once (s* = 0): authume_vegetated has mu_min = 1.5 x 0.55 =
    0.825 >= tan 35 = 0.700; on 40 degrees (tan = 0.8391) s* = tan((0.8391 - 0.825) / 2.175 *
    pi / 2) / 3 = tan(0.010182) / 3 = 0.003394 m (to 1e-5); l14_wheel (mu = 10) holds at once."""
    vegetated = Soil.preset("authume_vegetated")
    assert vegetated.holding_slippage(35.0) == 0.0
    assert vegetated.holding_slippage(40.0) == pytest.approx(0.003394, abs=1e-5)
    assert Soil.preset("l14_wheel").holding_slippage(45.0) == 0.0


def test_holding_slippage_of_coulomb_friction_and_the_asymptote():
    """Coulomb friction 0.55 holds at once below atan(0.55) = 28.81 deg and never above; a
    scarring law whose mu_max equals tan(slope) only tends to it and never holds (inf)."""
    coulomb = Soil.coulomb(0.55)
    assert coulomb.holding_slippage(28.0) == 0.0
    assert coulomb.holding_slippage(29.0) == math.inf
    tan45 = math.tan(math.radians(45.0))
    assert holding_slippage(0.2, tan45, 0.7, 45.0) == math.inf
    assert holding_slippage(0.2, tan45 + 1e-9, 0.7, 45.0) > 1e6


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((-0.1, 1.0, 1.0, 40.0), "mu_min"),
        ((0.5, 0.4, 1.0, 40.0), "mu_max must be at least mu_min"),
        ((0.5, 1.0, math.nan, 40.0), "kappa"),
        ((0.5, 1.0, 1.0, 90.0), "slope"),
        ((0.5, 1.0, 1.0, -1.0), "slope"),
    ],
)
def test_holding_slippage_refuses_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        holding_slippage(*args)


def test_holding_slippage_needs_constant_friction():
    soil = Soil(mu_min=np.full((2, 2), 0.5), mu_max=2.0, kappa=3.0, beta=185.0)
    with pytest.raises(ValueError, match="constant mu_min"):
        soil.holding_slippage(40.0)


def test_holding_angle_is_the_slope_whose_tangent_the_friction_reaches():
    """atan(mu_max) with scarring: Lu et al. 2019 atan 2 = 63.4349 deg, L14 section 5.1 atan 1.3
    = 52.4314 deg, authume_hard atan 0.6 = 30.9638 deg (hand values to 1e-4 deg); without it
    (kappa = 0) atan(mu_min): Coulomb 0.55 gives 28.8108 deg."""
    assert Soil.preset("lu2019").holding_angle() == pytest.approx(63.4349, abs=1e-4)
    assert Soil.preset("l14_scarring").holding_angle() == pytest.approx(52.4314, abs=1e-4)
    assert Soil.preset("authume_hard").holding_angle() == pytest.approx(30.9638, abs=1e-4)
    assert Soil.coulomb(0.55).holding_angle() == pytest.approx(28.8108, abs=1e-4)
    assert holding_angle(0.55, 2.0, 0.0) == pytest.approx(28.8108, abs=1e-4)


def test_tipping_angle_of_the_rocks_of_the_start_of_motion_benchmark():
    """atan((a + mu_r R) / h) by hand (to 0.01 deg): EOTA221 (L = 0.93 m) on a large face, a = h
    = L/4: atan 1 = 45 deg; with mu_r = 0.15 and R = sqrt(3) L/4 (its vertices): atan(1 + 0.15
    sqrt 3) = atan 1.2598 = 51.56 deg; EOTA111 on a square face a = L/4, h = L/2: atan 0.5 =
    26.57 deg, with mu_r 0.15 and R = sqrt(6) L/4: atan(0.5 + 0.15 sqrt(6) / 2) = atan 0.6837 =
    34.36 deg; the box 0.4 x 0.3 x 0.2 m on its largest face, long side down the slope: atan(0.2
    / 0.1) = 63.43 deg."""
    quarter = 0.93 / 4.0
    assert tipping_angle(quarter, quarter) == pytest.approx(45.0, abs=1e-12)
    assert tipping_angle(quarter, quarter, 0.15, math.sqrt(3.0) * quarter) == pytest.approx(
        51.56, abs=0.01
    )
    assert tipping_angle(quarter, 2 * quarter) == pytest.approx(26.57, abs=0.01)
    assert tipping_angle(quarter, 2 * quarter, 0.15, math.sqrt(6.0) * quarter) == pytest.approx(
        34.36, abs=0.01
    )
    assert tipping_angle(0.2, 0.1) == pytest.approx(63.43, abs=0.01)
    with pytest.raises(ValueError, match="centre_height"):
        tipping_angle(0.2, 0.0)
    with pytest.raises(ValueError, match="rolling_resistance"):
        tipping_angle(0.2, 0.1, -0.1, 0.3)
