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
