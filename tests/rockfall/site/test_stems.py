"""``[forest]`` stands and single trees through a run configuration (tumble.rockfall.site.stems):
rasters on any grid resampled to the DEM, numbers, tree points in another CRS, clear errors."""

import numpy as np
import pytest

from tumble.errors import ConfigError
from tumble.io.config import validate
from tumble.io.dem import write_raster
from tumble.io.vectors import write_points
from tumble.rockfall import Terrain
from tumble.rockfall.site.from_config import build_ensemble
from tumble.rockfall.step.trees import MODE_STAND, MODE_TREES

CRS = "EPSG:2056"
X0, Y0 = 2600000.0, 1200000.0


@pytest.fixture
def dem(tmp_path):
    x = np.arange(41.0)
    terrain = Terrain.from_array(
        np.broadcast_to((40.0 - x) * 0.5, (25, 41)), x0=X0, y0=Y0, dx=1.0, crs=CRS
    )
    return terrain.write(tmp_path / "dem.tif")


def config(dem, forest):
    data = {"dem": str(dem), "rocks": 2, "release": {"point": [X0 + 5.0, Y0 + 12.0]}}
    return validate({**data, "forest": forest})


def test_stand_numbers_and_a_coarse_raster(dem, tmp_path):
    # 2 m pixels whose edges are the DEM's: 600 stems/ha on the lower half of x (i >= 20)
    coarse = np.broadcast_to(np.where(np.arange(21) < 10, 0.0, 600.0), (13, 21)).copy()
    path = write_raster(tmp_path / "stems.tif", coarse, X0 + 0.5, Y0 + 0.5, 2.0, 2.0, crs=CRS)
    ensemble = build_ensemble(config(dem, {"stems_per_ha": str(path), "dbh_cm": 25.0}))
    forest = ensemble.forest
    assert forest.mode == MODE_STAND
    density = forest.density.reshape(25, 41)
    assert np.all(density[:, :20] == 0.0)
    assert np.allclose(density[:, 20:40], 0.06)  # stems per m^2
    assert np.allclose(forest.dbh.reshape(25, 41)[:, 20:40], 0.25)


def test_single_trees_in_another_crs_land_on_the_dem(dem, tmp_path):
    # LV03 (EPSG:21781) is LV95 shifted by 2 000 000 m, 1 000 000 m
    xyz = np.array([[600010.0, 200012.0, 0.0], [600030.0, 200005.0, 0.0]])
    path = write_points(tmp_path / "trees.gpkg", xyz, {"dbh": [30.0, 45.0]}, crs="EPSG:21781")
    ensemble = build_ensemble(config(dem, {"trees": str(path)}))
    forest = ensemble.forest
    assert forest.mode == MODE_TREES and forest.n_trees == 2
    assert np.allclose(np.sort(forest.tree_xy[:, 0]), [X0 + 10.0, X0 + 30.0], atol=0.05)
    assert np.allclose(np.sort(forest.tree_dbh), [0.30, 0.45])


def test_without_stems_there_is_no_forest(dem):
    assert build_ensemble(config(dem, {})).forest is None


@pytest.mark.parametrize(
    ("forest", "key"),
    [
        ({"stems_per_ha": 300.0}, "forest.dbh_cm"),
        ({"stems_per_ha": 300.0, "dbh_cm": 30.0, "trees": "t.gpkg"}, "forest.trees"),
        ({"trees": "missing.gpkg"}, "forest.trees"),
    ],
)
def test_bad_forest_inputs_name_their_key(dem, forest, key):
    with pytest.raises(ConfigError) as err:
        build_ensemble(config(dem, forest))
    assert err.value.key == key


def test_stand_raster_errors_name_their_key_and_place(dem, tmp_path):
    """A negative DBH or energy factor in a raster is refused under its own key, with its value
    and where it lies; a raster energy factor with single trees names energy_factor."""
    from tumble.rockfall import Terrain

    values = np.full((25, 41), 30.0)
    values[3, 7] = -30.0
    bad = Terrain.from_array(values, x0=X0, y0=Y0, dx=1.0, crs=CRS).write(tmp_path / "dbh.tif")
    with pytest.raises(ConfigError) as err:
        build_ensemble(config(dem, {"stems_per_ha": 300.0, "dbh_cm": str(bad)}))
    assert err.value.key == "forest.dbh_cm"
    assert "got -30 (1 DEM sample(s), the first at x = 2600007.00, y = 1200003.00)" in str(
        err.value
    )
    with pytest.raises(ConfigError) as err:
        build_ensemble(
            config(dem, {"stems_per_ha": 300.0, "dbh_cm": 30.0, "energy_factor": str(bad)})
        )
    assert err.value.key == "forest.energy_factor"
    xyz = np.array([[X0 + 10.0, Y0 + 12.0, 0.0]])
    trees = write_points(tmp_path / "trees.gpkg", xyz, {"dbh": [30.0]}, crs=CRS)
    with pytest.raises(ConfigError, match="energy_factor as a number") as err:
        build_ensemble(config(dem, {"trees": str(trees), "energy_factor": str(bad)}))
    assert err.value.key == "forest.energy_factor"


def test_stems_without_dbh_and_dbh_in_metres_are_warned_about(dem, tmp_path):
    """Stems over samples whose DBH is nodata hold no forest: the run says how many; a DBH of
    0.3 (metres typed for centimetres) runs, with a warning; a tree file without CRS too."""
    from tumble.rockfall import Terrain
    from tumble.rockfall.site.from_config import build_run

    values = np.full((25, 41), 30.0)
    values[:, :5] = np.nan
    path = Terrain.from_array(values, x0=X0, y0=Y0, dx=1.0, crs=CRS).write(tmp_path / "d.tif")
    setup = build_run(config(dem, {"stems_per_ha": 300.0, "dbh_cm": str(path)}))
    [warning] = [w for w in setup.warnings if w.startswith("forest")]
    assert "125 DEM samples with stems have no DBH" in warning
    setup = build_run(config(dem, {"stems_per_ha": 300.0, "dbh_cm": 0.3}))
    [warning] = [w for w in setup.warnings if w.startswith("forest")]
    assert "below 5 cm (smallest 0.3 cm" in warning and "not metres" in warning
    xyz = np.array([[X0 + 10.0, Y0 + 12.0, 0.0]])
    trees = write_points(tmp_path / "trees.gpkg", xyz, {"dbh": [30.0]}, crs=None)
    setup = build_run(config(dem, {"trees": str(trees)}))
    assert any("has no CRS" in w for w in setup.warnings)


def test_a_tree_without_dbh_is_refused(dem, tmp_path):
    xyz = np.array([[X0 + 10.0, Y0 + 12.0, 0.0]])
    path = write_points(tmp_path / "trees.gpkg", xyz, {"dbh": [0.0]}, crs=CRS)
    with pytest.raises(ConfigError, match="tree 1 has dbh = 0"):
        build_ensemble(config(dem, {"trees": str(path)}))


def test_the_resolved_configuration_keeps_the_stand(dem):
    from tumble.rockfall.site.from_config import build_run
    from tumble.rockfall.site.resolved import resolved_config

    c = config(dem, {"stems_per_ha": 300.0, "dbh_cm": 30.0})
    data = resolved_config(c, build_run(c), {})
    assert data["forest"] == {
        "stems_per_ha": 300.0,
        "dbh_cm": 30.0,
        "energy_factor": 1.0,
        "dbh_field": "dbh",
    }


def test_a_drag_of_another_block_size_is_warned_about(dem):
    """authume_vegetated carries the vegetation drag of a 1 m^3 block: with rocks of 0.1 m^3
    the run says so and gives the drag scaled with the projected area, 700 (0.1)^(2/3) =
    150.8 kg/s; with 1 m^3 rocks, or the class's own drag, it says nothing."""
    from tumble.rockfall.site.from_config import build_run

    data = {"dem": str(dem), "rocks": 2, "release": {"point": [X0 + 5.0, Y0 + 12.0]}}
    small = {"shape": "eota111", "volume": 0.1}
    setup = build_run(validate({**data, "rock": small, "soil": {"preset": "authume_vegetated"}}))
    [warning] = [w for w in setup.warnings if "drag" in w]
    assert warning.startswith("soil.preset: authume_vegetated's drag (700 kg/s)")
    assert "0.1-0.1 m^3" in warning and "151 kg/s for the median rock" in warning
    for rock, soil in (
        ({"shape": "eota111", "volume": 1.0}, {"preset": "authume_vegetated"}),
        (small, {"preset": "authume_vegetated", "drag": 150.8}),
    ):
        setup = build_run(validate({**data, "rock": rock, "soil": soil}))
        assert not [w for w in setup.warnings if "drag" in w]


def test_the_resolved_configuration_says_which_soil_fields_each_rock_draws(dem):
    """soil.uncertainty = "sets" on medium: the soil strength is shown as the three equivalent
    sets' values drawn per rock, not the first set's alone; "category": its range."""
    from tumble.rockfall.site.from_config import build_run
    from tumble.rockfall.site.resolved import resolved_config

    data = {"dem": str(dem), "rocks": 2, "release": {"point": [X0 + 5.0, Y0 + 12.0]}}
    c = validate({**data, "soil": {"preset": "medium", "uncertainty": "sets"}})
    soil = resolved_config(c, build_run(c), {})["soil"]
    assert (
        soil["scar_strength"] == "drawn per rock: one of the equivalent sets' 15000, 15000, 60000"
    )
    assert soil["rolling_resistance"] == 0.1 and soil["uncertainty"] == "sets"
    c = validate({**data, "soil": {"preset": "medium", "uncertainty": "category"}})
    soil = resolved_config(c, build_run(c), {})["soil"]
    assert soil["scar_strength"] == "drawn per rock: uniform in [15000, 60000]"


def test_a_number_s_wrong_value_or_kind_is_named_plainly(dem):
    """A negative DBH names its bound only (not the file-name member of the union); a DBH or a
    soil field given as quoted text is named as text that would be read as a raster file."""
    with pytest.raises(ConfigError) as err:
        build_ensemble(config(dem, {"stems_per_ha": 300.0, "dbh_cm": -30.0}))
    assert "greater than 0 (got -30.0)" in str(err.value) and "string" not in str(err.value)
    with pytest.raises(ConfigError) as err:
        build_ensemble(config(dem, {"stems_per_ha": 300.0, "dbh_cm": "30"}))
    assert err.value.key == "forest.dbh_cm" and "is text" in str(err.value)
    data = {"dem": str(dem), "rocks": 2, "release": {"point": [X0 + 5.0, Y0 + 12.0]}}
    with pytest.raises(ConfigError) as err:
        build_ensemble(validate({**data, "soil": {"preset": "medium", "mu_min": "0.5"}}))
    assert err.value.key == "soil.mu_min" and "without quotes" in str(err.value)
