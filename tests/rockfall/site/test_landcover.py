"""Soil and forest class maps (``tumble.rockfall.site.landcover``) through a run configuration: maps
on any grid resampled to the DEM, per-class soils, the forest drag layer (Leine et al. 2014,
eq. 10-11) and clear errors for bad maps."""

import math

import numpy as np
import pytest

from tumble.io.config import validate
from tumble.io.dem import write_raster
from tumble.rockfall import Rock, Soil, Terrain, simulate
from tumble.rockfall.site.from_config import build_ensemble
from tumble.rockfall.site.landcover import ForestDrag, with_forest
from tumble.rockfall.soil import CATALOGUE, PRESETS

CRS = "EPSG:2056"
X0, Y0 = 2600000.0, 1200000.0


@pytest.fixture
def site(tmp_path):
    """A 40 x 24 m slope on a 1 m grid (41 x 25 samples) and a class map on a 2 m grid that
    covers the DEM's pixels exactly: class 1 on the upper half of x, class 2 below."""
    x = np.arange(41.0)
    heights = np.broadcast_to((40.0 - x) * 0.5, (25, 41))
    terrain = Terrain.from_array(heights, x0=X0, y0=Y0, dx=1.0, crs=CRS)
    dem = terrain.write(tmp_path / "dem.tif")
    # coarse pixels of 2 m whose edges are the DEM's pixel edges (x0 - 0.5 ...)
    coarse = np.where(np.arange(21) < 10, 1.0, 2.0)
    coarse = np.broadcast_to(coarse, (13, 21)).copy()
    coarse_path = write_raster(
        tmp_path / "soil_coarse.tif", coarse, X0 + 0.5, Y0 + 0.5, 2.0, 2.0, crs=CRS
    )
    return terrain, dem, coarse, coarse_path


def config(dem, **sections):
    data = {"dem": str(dem), "rocks": 2, "release": {"point": [X0 + 5.0, Y0 + 12.0]}}
    data.update(sections)
    return validate(data)


def fine_map(terrain, coarse, path):
    """The coarse map upsampled to the DEM grid by hand (the centre of pixel j, i of the DEM
    lies in the coarse pixel j // 2, i // 2), written on the DEM's own grid."""
    ny, nx = terrain.shape
    j, i = np.mgrid[0:ny, 0:nx]
    fine = coarse[j // 2, i // 2]
    return write_raster(path, fine, terrain.x0, terrain.y0, 1.0, 1.0, crs=CRS), fine


CLASSES = {"1": "medium", "2": {"preset": "medium", "drag": 3000.0, "drag_height": 1.5}}


def test_soil_map_on_a_coarser_grid_equals_the_same_map_on_the_dem_grid(site, tmp_path):
    terrain, dem, coarse, coarse_path = site
    fine_path, fine = fine_map(terrain, coarse, tmp_path / "soil_fine.tif")
    a = build_ensemble(config(dem, soil={"map": str(coarse_path), "classes": CLASSES})).soil
    b = build_ensemble(config(dem, soil={"map": str(fine_path), "classes": CLASSES})).soil
    assert a.rasters == b.rasters == ("drag", "drag_height")
    for name in a.rasters:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # class 2 (the preset with overrides) exactly where the upsampled map says 2
    np.testing.assert_array_equal(a.drag, np.where(fine == 2, 3000.0, 0.0))
    assert a.mu_min == PRESETS["medium"]["mu_min"] and a.kappa == PRESETS["medium"]["kappa"]


def test_soil_map_in_memory_keys_keep_working(site):
    _, dem, _, _ = site
    ensemble = build_ensemble(config(dem, soil={"preset": "l14_scarring", "drag": 10.0}))
    assert ensemble.soil.mu_max == 1.3 and ensemble.soil.drag == 10.0


@pytest.mark.parametrize(
    ("soil", "message"),
    [
        ({"classes": {"1": "medium"}}, "soil.map and soil.classes go together"),
        ({"map": "MAP", "classes": {"1": "medium"}}, r"class code\(s\) 2 with no entry"),
        ({"map": "MAP", "classes": CLASSES, "mu_min": 0.3}, "per class in \\[soil.classes\\]"),
        ({"map": "MAP", "classes": {"1": "medium", "2": "gravel"}}, "soil.classes.2: unknown"),
    ],
)
def test_bad_soil_maps_are_refused_clearly(site, soil, message):
    _, dem, _, coarse_path = site
    soil = {k: (str(coarse_path) if v == "MAP" else v) for k, v in soil.items()}
    with pytest.raises(ValueError, match=message):
        build_ensemble(config(dem, soil=soil))


def test_a_map_that_does_not_overlap_the_dem_is_refused(site, tmp_path):
    _, dem, coarse, _ = site
    far = write_raster(tmp_path / "far.tif", coarse, X0 + 5000.0, Y0, 2.0, 2.0, crs=CRS)
    with pytest.raises(ValueError, match=r"soil.map .*far.tif does not overlap the DEM"):
        build_ensemble(config(dem, soil={"map": str(far), "classes": CLASSES}))
    with pytest.raises(ValueError, match=r"forest.map .*does not overlap the DEM"):
        build_ensemble(config(dem, forest={"map": str(far), "classes": {"1": FOREST}}))


def test_a_map_that_leaves_dem_cells_without_a_class_is_refused(site, tmp_path):
    _, dem, coarse, _ = site
    part = write_raster(tmp_path / "part.tif", coarse[:, :5], X0 + 0.5, Y0 + 0.5, 2.0, 2.0, crs=CRS)
    with pytest.raises(ValueError, match=r"leaves \d+ sample\(s\) of the DEM without a soil class"):
        build_ensemble(config(dem, soil={"map": str(part), "classes": CLASSES}))


def test_catalogue_entries_carry_a_source():
    assert set(CATALOGUE) >= {"medium", "l14_scarring"}
    for preset in CATALOGUE.values():
        assert preset.source and Soil.preset  # every preset is usable and cites its source
    # the published sets, as in physics/rockfall_model.md
    assert PRESETS["lu2019"] == {"mu_min": 0.55, "mu_max": 2.0, "kappa": 3.0, "beta": 185.0}
    # the default soil: the same set with the Authume rolling resistance
    assert PRESETS["medium"] == PRESETS["lu2019"] | {
        "rolling_resistance": 0.1,
        "scar_strength": 15000.0,
        "scar_cs": 1.5,
    }
    assert PRESETS["l14_scarring"] == {"mu_min": 0.2, "mu_max": 1.3, "kappa": 0.7, "beta": 20.0}


# --- forest ----------------------------------------------------------------------------------

FOREST = {"drag": 2000.0, "drag_height": 4.0, "drag_torque": 50.0}


def test_forest_map_sets_the_drag_layer_of_its_classes_only(site, tmp_path):
    terrain, dem, coarse, _ = site
    forest = np.where(coarse == 2, 1.0, 0.0)
    forest[0, 0] = np.nan  # nodata: no forest
    path = write_raster(tmp_path / "forest.tif", forest, X0 + 0.5, Y0 + 0.5, 2.0, 2.0, crs=CRS)
    soil = build_ensemble(config(dem, forest={"map": str(path), "classes": {"1": FOREST}})).soil
    _, fine = fine_map(terrain, coarse, tmp_path / "fine.tif")
    for name, value in FOREST.items():
        np.testing.assert_array_equal(getattr(soil, name), np.where(fine == 2, value, 0.0))
    with pytest.raises(ValueError, match=r"forest.map holds class code\(s\) 1 with no entry"):
        build_ensemble(config(dem, forest={"map": str(path), "classes": {"3": FOREST}}))
    with pytest.raises(ValueError, match="forest preset 'dense' is not available"):
        build_ensemble(config(dem, forest={"map": str(path), "classes": {"1": "dense"}}))


def test_drag_acts_only_below_the_effective_height():
    """Leine et al. 2014, eq. 10-11: the drag layer acts while the centre of mass is less than
    the effective height above the terrain. A rock thrown horizontally over flat forest keeps
    its horizontal velocity exactly while above it; below it every step multiplies the
    horizontal velocity by (m - c dt/2) / (m + c dt/2), the linearly implicit drag of Leine
    et al. 2021, eq. 78."""
    terrain = Terrain.plane(0.0, size=(200.0, 20.0))
    rock = Rock.eota111(mass=500.0)
    height, drag, dt = 4.0, 2000.0, 0.002
    soil = with_forest(
        Soil.preset("medium"),
        np.ones(terrain.shape),
        {1: ForestDrag(drag=drag, drag_height=height)},
        terrain,
    )
    one = simulate(terrain, rock, soil, (5.0, 0.0, 12.0), velocity=(10.0, 0.0, 0.0), t_max=1.6)
    vx = one.velocity[:, 0]
    ratio = vx[1:] / vx[:-1]
    # the drag layer is decided at the step's midpoint (Leine et al. 2021, eq. 79)
    mid = one.position[:-1, 2] + 0.5 * dt * one.velocity[:-1, 2]
    above, below = mid > height + 1e-6, (mid < height - 1e-6) & ~one.in_contact[1:]
    assert above.sum() > 100 and below.sum() > 50
    np.testing.assert_array_equal(ratio[above], 1.0)
    expected = (rock.mass - 0.5 * dt * drag) / (rock.mass + 0.5 * dt * drag)
    np.testing.assert_allclose(ratio[below], expected, rtol=1e-12)


def test_forest_shortens_the_run_out():
    """The same rock on the same slope-and-flat terrain, with and without forest on the flat:
    the forest's drag layer stops it sooner."""
    x = np.arange(121.0)
    z = np.maximum(40.0 - x, 0.0) * math.tan(math.radians(35.0))
    terrain = Terrain.from_array(np.broadcast_to(z, (21, 121)), y0=-10.0)
    rock = Rock.eota111(mass=400.0)
    start = (3.0, 0.0, float(terrain.height(3.0, 0.0)) + 1.0)
    forest = np.where(x >= 40.0, 1.0, 0.0)[None, :] * np.ones((21, 1))
    layer = {1: ForestDrag(drag=1500.0, drag_height=3.0, drag_torque=100.0)}
    soils = {
        "open": Soil.preset("medium"),
        "forest": with_forest(Soil.preset("medium"), forest, layer, terrain),
    }
    stop = {}
    for name, soil in soils.items():
        rock_run = simulate(terrain, rock, soil, start, velocity=(2.0, 0.0, 0.0), t_max=40.0)
        assert rock_run.status == "stopped", name
        stop[name] = rock_run.position[-1, 0]
    assert stop["forest"] < stop["open"] - 5.0
