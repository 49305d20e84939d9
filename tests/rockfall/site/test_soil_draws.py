"""``soil.uncertainty`` through a run configuration: each rock's soil drawn from its category
(one soil, or per class of a soil map), the releases unchanged, and clear errors naming the key."""

import numpy as np
import pytest

from tumble.errors import ConfigError
from tumble.io.config import validate
from tumble.io.dem import write_raster
from tumble.rockfall import Terrain
from tumble.rockfall.site.from_config import build_run
from tumble.rockfall.site.soil_uncertainty import set_index, soil_uniforms
from tumble.rockfall.soil import CATALOGUE, FIELDS

CRS = "EPSG:2056"
X0, Y0 = 2600000.0, 1200000.0
N = 40


@pytest.fixture
def site(tmp_path):
    """A 40 x 24 m slope on a 1 m grid and a class map on the DEM grid: class 1 on the upper
    half of x, class 2 below."""
    x = np.arange(41.0)
    heights = np.broadcast_to((40.0 - x) * 0.5, (25, 41))
    terrain = Terrain.from_array(heights, x0=X0, y0=Y0, dx=1.0, crs=CRS)
    dem = terrain.write(tmp_path / "dem.tif")
    classes = np.broadcast_to(np.where(x < 20, 1.0, 2.0), (25, 41)).copy()
    path = write_raster(tmp_path / "soil.tif", classes, X0, Y0, 1.0, 1.0, crs=CRS)
    return dem, path


def at(field, row: int, col: int) -> float:
    """A soil field's value at a DEM sample: a raster's, or the constant a uniform field is
    stored as."""
    return float(field) if np.ndim(field) == 0 else float(field[row, col])


def config(dem, **sections):
    data = {"dem": str(dem), "rocks": N, "seed": 9, "release": {"point": [X0 + 5.0, Y0 + 12.0]}}
    data.update(sections)
    return validate(data)


def test_one_soil_with_category_draws_gives_each_rock_its_own_scar_strength(site):
    dem, _ = site
    setup = build_run(config(dem, soil={"preset": "medium", "uncertainty": "category"}))
    ens = setup.ensemble
    low, high = CATALOGUE["medium"].spread["scar_strength"]
    expected = low + (high - low) * soil_uniforms(9, N)[:, 1 + FIELDS.index("scar_strength")]
    drawn = np.array([ens.soil_of(k).scar_strength for k in range(N)])
    np.testing.assert_array_equal(drawn, expected)
    np.testing.assert_array_equal(setup.soil_draws.columns()["soil_scar_strength"], expected)
    assert setup.soil_draws.described["mode"] == "category"
    # the releases are those of the run without uncertainty
    plain = build_run(config(dem, soil={"preset": "medium"}))
    np.testing.assert_array_equal(ens.states.position, plain.ensemble.states.position)
    np.testing.assert_array_equal(ens.states.orientation, plain.ensemble.states.orientation)
    assert plain.ensemble.soils is None and plain.soil_draws.columns() == {}


def test_a_soil_map_with_sets_draws_one_joint_set_per_rock(site):
    dem, path = site
    soil = {
        "map": str(path),
        "uncertainty": "sets",
        "classes": {"1": "authume_vegetated", "2": "medium"},
    }
    setup = build_run(config(dem, soil=soil))
    ens = setup.ensemble
    u = soil_uniforms(9, N)[:, 0]
    which_veg = set_index(u, len(CATALOGUE["authume_vegetated"].sets))
    which_med = set_index(u, len(CATALOGUE["medium"].sets))
    for k in range(N):
        s = ens.soil_of(k)
        veg = CATALOGUE["authume_vegetated"].sets[which_veg[k]]
        med = CATALOGUE["medium"].sets[which_med[k]]
        # class 1 on x < 20, class 2 beyond: each class's set from the rock's one uniform
        assert at(s.mu_min, 12, 5) == veg["mu_min"] and at(s.drag, 12, 5) == veg["drag"]
        assert at(s.scar_strength, 12, 5) == veg["scar_strength"]
        assert at(s.scar_strength, 12, 30) == med["scar_strength"]
    assert len(ens.soils) == len(set(zip(which_veg.tolist(), which_med.tolist(), strict=True)))


@pytest.mark.parametrize(
    ("soil", "key", "message"),
    [
        ({"uncertainty": "wide"}, "soil.uncertainty", "soil.uncertainty"),
        ({"preset": "lu2019", "uncertainty": "category"}, "soil.uncertainty", "no published"),
        (
            {"preset": "medium", "uncertainty": "sets", "mu_min": 0.3},
            "soil.uncertainty",
            "no field of its own",
        ),
        (
            {"map": "MAP", "classes": {"1": {"preset": "medium", "uncertainty": "often"}}},
            # the key of the class (a string or a table); the message names the field
            "soil.classes.1",
            "soil.classes.1.uncertainty",
        ),
        (
            {
                "map": "MAP",
                "uncertainty": "category",
                "classes": {"1": "medium", "2": "authume_rocky"},
            },
            "soil.uncertainty",
            "one map per rock",
        ),
    ],
)
def test_bad_uncertainty_is_a_config_error_naming_the_key(site, soil, key, message):
    dem, path = site
    soil = {k: (str(path) if v == "MAP" else v) for k, v in soil.items()}
    with pytest.raises(ConfigError, match=message) as err:
        build_run(config(dem, soil=soil))
    assert err.value.key == key


def test_a_class_table_with_its_own_uncertainty_draws_only_that_class(site):
    dem, path = site
    soil = {
        "map": str(path),
        "classes": {"1": "medium", "2": {"preset": "authume_vegetated", "uncertainty": "sets"}},
    }
    setup = build_run(config(dem, soil=soil))
    which = set_index(soil_uniforms(9, N)[:, 0], len(CATALOGUE["authume_vegetated"].sets))
    for k in range(N):
        s = setup.ensemble.soil_of(k)
        assert at(s.mu_min, 12, 5) == CATALOGUE["medium"].values["mu_min"]
        expected = CATALOGUE["authume_vegetated"].sets[which[k]]
        assert at(s.mu_min, 12, 30) == expected["mu_min"]
        assert at(s.scar_strength, 12, 30) == expected["scar_strength"]
    assert list(setup.soil_draws.described["categories"]) == ["class 2"]


def test_a_retired_category_runs_as_released_with_a_warning_naming_its_successor(site):
    """medium_scar was merged into medium: a released name stays available with its numbers,
    and the run's warnings say what to use now; an unknown name lists the categories."""
    dem, _ = site
    setup = build_run(config(dem, soil={"preset": "medium_scar"}))
    assert setup.ensemble.soil.scar_strength == 15000.0
    assert any("'medium_scar' is retired: use medium" in w for w in setup.warnings)
    with pytest.raises(ConfigError, match="unknown soil preset 'hard'; choose one of") as err:
        build_run(config(dem, soil={"preset": "hard"}))
    assert err.value.key == "soil.preset"


def write_calibration(path, sets):
    """A calibration file as ``tumble rockfall calibrate`` writes it: the best set in
    ``[soil]`` (lu2019 with ``rolling_resistance`` 0.25) and ``[[sets]]`` with the given
    ``rolling_resistance`` values."""
    base = "mu_min = 0.55\nmu_max = 2.0\nkappa = 3.0\nbeta = 185.0\n"
    text = "[soil]\n" + base + "rolling_resistance = 0.25\n\n[soil.scores]\nks_pvalue = 0.5\n"
    for value in sets:
        text += "\n[[sets]]\n" + base + f"rolling_resistance = {value}\n"
    path.write_text(text)
    return path


def test_a_calibration_with_sets_gives_each_rock_one_of_its_equivalent_sets(site, tmp_path):
    """soil.calibration with uncertainty = "sets": rock k takes set floor(2 u_0) of the two
    equivalent sets (u_0 its first soil uniform), every other field that of the sets; with
    "none" every rock takes the best set; "category" and a field given beside the draws are
    refused naming the key."""
    dem, _ = site
    calib = write_calibration(tmp_path / "calibration.toml", (0.2, 0.3))
    setup = build_run(config(dem, soil={"calibration": str(calib), "uncertainty": "sets"}))
    drawn = np.array([setup.ensemble.soil_of(k).rolling_resistance for k in range(N)])
    expected = np.array([0.2, 0.3])[np.floor(2.0 * soil_uniforms(9, N)[:, 0]).astype(int)]
    np.testing.assert_array_equal(drawn, expected)
    assert set(drawn) == {0.2, 0.3}
    assert all(setup.ensemble.soil_of(k).mu_max == 2.0 for k in range(N))
    described = setup.soil_draws.described["categories"]["soil"]
    assert (described["category"], described["sets"]) == ("calibration", 2)
    best = build_run(config(dem, soil={"calibration": str(calib)}))
    assert best.ensemble.soils is None and best.ensemble.soil.rolling_resistance == 0.25
    with pytest.raises(ConfigError, match="category") as err:
        build_run(config(dem, soil={"calibration": str(calib), "uncertainty": "category"}))
    assert err.value.key == "soil.uncertainty"
    with pytest.raises(ConfigError, match="rolling_resistance"):
        build_run(
            config(
                dem,
                soil={"calibration": str(calib), "uncertainty": "sets", "rolling_resistance": 0.1},
            )
        )
    empty = write_calibration(tmp_path / "empty.toml", ())
    with pytest.raises(ConfigError, match="no equivalent sets"):
        build_run(config(dem, soil={"calibration": str(empty), "uncertainty": "sets"}))


def write_class_calibration(path, sets):
    """A calibration of a soil map's classes as ``tumble rockfall calibrate --free
    2.rolling_resistance=...`` writes it: the best set of class 2 in ``[soil.classes.2]`` (lu2019
    with ``rolling_resistance`` 0.25) and each ``[[sets]]`` with its ``[sets.classes.2]``."""
    base = "mu_min = 0.55\nmu_max = 2.0\nkappa = 3.0\nbeta = 185.0\n"
    text = "[soil]\n[soil.scores]\nks_pvalue = 0.5\n\n[soil.classes.2]\n" + base
    text += "rolling_resistance = 0.25\n"
    for value in sets:
        text += f"\n[[sets]]\n[sets.classes.2]\n{base}rolling_resistance = {value}\n"
    path.write_text(text)
    return path


def test_a_calibration_of_map_classes_draws_one_set_per_rock_for_the_classes_it_calibrated(
    site, tmp_path
):
    """soil.calibration of class 2 with uncertainty = "sets": rock k takes set floor(2 u_0) of
    the two equivalent sets on class 2 (u_0 its first soil uniform, the rule of a single
    soil), class 1 keeps the configuration's medium; deposits.csv's columns carry class 2's
    drawn value; "none" takes the best set; a class drawing on its own and "category" are
    refused naming the key."""
    dem, soil_map = site
    calib = write_class_calibration(tmp_path / "classes.toml", (0.2, 0.3))
    soil = {"map": str(soil_map), "classes": {"1": "medium", "2": "lu2019"}}
    setup = build_run(config(dem, soil={**soil, "calibration": str(calib), "uncertainty": "sets"}))
    k = np.floor(2.0 * soil_uniforms(9, N)[:, 0]).astype(int)
    expected = np.array([0.2, 0.3])[k]
    # the DEM sample (row 12, col 30) lies in class 2, (12, 5) in class 1
    drawn = np.array([at(setup.ensemble.soil_of(r).rolling_resistance, 12, 30) for r in range(N)])
    np.testing.assert_array_equal(drawn, expected)
    assert set(drawn) == {0.2, 0.3}
    medium = CATALOGUE["medium"].values["rolling_resistance"]
    assert all(at(setup.ensemble.soil_of(r).rolling_resistance, 12, 5) == medium for r in range(N))
    np.testing.assert_array_equal(
        setup.soil_draws.columns()["soil_class2_rolling_resistance"], expected
    )
    described = setup.soil_draws.described["categories"]
    assert list(described) == ["class 2"] and described["class 2"]["sets"] == 2
    best = build_run(config(dem, soil={**soil, "calibration": str(calib)}))
    assert best.ensemble.soils is None
    assert at(best.ensemble.soil.rolling_resistance, 12, 30) == 0.25
    with pytest.raises(ConfigError, match="uniform spread") as err:
        build_run(config(dem, soil={**soil, "calibration": str(calib), "uncertainty": "category"}))
    assert err.value.key == "soil.uncertainty"
    own = {"1": "medium", "2": {"preset": "lu2019", "uncertainty": "sets"}}
    with pytest.raises(ConfigError, match="draws on its own") as err:
        build_run(
            config(dem, soil={"map": str(soil_map), "classes": own, "calibration": str(calib)})
        )
    assert err.value.key == "soil.classes.2.uncertainty"
    empty = write_class_calibration(tmp_path / "empty.toml", ())
    with pytest.raises(ConfigError, match="no equivalent sets"):
        build_run(config(dem, soil={**soil, "calibration": str(empty), "uncertainty": "sets"}))
