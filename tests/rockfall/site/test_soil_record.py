"""The soils of a run named with their values (``tumble.rockfall.site.soil_record``): the preset of
each soil and every value it resolves to, the fields given over it, a soil map's classes, the
built-in terrain's own soil, and the start line and resolved configuration that show them."""

import numpy as np
import pytest

from tumble.io.config import validate
from tumble.io.dem import write_raster
from tumble.rockfall import Terrain
from tumble.rockfall.site.from_config import build_run
from tumble.rockfall.site.resolved import resolved_config
from tumble.rockfall.site.soil_record import soil_text
from tumble.rockfall.soil import FIELDS

CRS = "EPSG:2056"
X0, Y0 = 2600000.0, 1200000.0


@pytest.fixture
def site(tmp_path):
    """A 40 x 24 m slope on a 1 m grid and a class map on it: class 1 above x = 20 m, 2 below."""
    x = np.arange(41.0)
    heights = np.broadcast_to((40.0 - x) * 0.5, (25, 41))
    dem = Terrain.from_array(heights, x0=X0, y0=Y0, dx=1.0, crs=CRS).write(tmp_path / "dem.tif")
    classes = np.broadcast_to(np.where(x < 20, 1.0, 2.0), (25, 41)).copy()
    return dem, write_raster(tmp_path / "soil.tif", classes, X0, Y0, 1.0, 1.0, crs=CRS)


def config(dem, **soil):
    return validate(
        {"dem": str(dem), "rocks": 2, "release": {"point": [X0 + 5.0, Y0 + 12.0]}, "soil": soil}
    )


def every(**values):
    return {f: values.get(f, 0.0) for f in FIELDS}


def test_a_preset_with_a_field_given_over_it(site):
    """The record holds the preset's own values and the values the run used, the given field
    marked; the line names the preset, the given field and every value that is not 0."""
    dem, _ = site
    record = build_run(config(dem, preset="authume_rocky", restitution=0.2)).soil_record
    rocky = every(mu_min=0.55, mu_max=2.0, kappa=3.0, beta=185.0, rolling_resistance=0.2)
    assert record["presets"] == {"authume_rocky": rocky}
    assert record["soils"] == {
        "soil": {
            "preset": "authume_rocky",
            "given": {"restitution": 0.2},
            "values": {**rocky, "restitution": 0.2},
        }
    }
    assert soil_text(record) == (
        "soil: authume_rocky with restitution 0.2 (mu_min 0.55, mu_max 2, kappa 3 1/m, "
        "beta 185 1/s, restitution 0.2, rolling_resistance 0.2; the other fields 0)"
    )


def test_a_soil_map_names_each_class(site):
    dem, classes = site
    record = build_run(
        config(
            dem,
            preset=None,
            map=str(classes),
            classes={1: "l14_wheel", 2: {"preset": "lu2019", "kappa": 1.0}},
        )
    ).soil_record
    assert set(record["presets"]) == {"l14_wheel", "lu2019"}
    assert record["soils"]["class 2"]["values"]["kappa"] == 1.0
    assert record["presets"]["lu2019"]["kappa"] == 3.0
    assert soil_text(record) == (
        "soil map: class 1 l14_wheel (mu_min 10, mu_max 10; the other fields 0); class 2 lu2019 "
        "with kappa 1 1/m (mu_min 0.55, mu_max 2, kappa 1 1/m, beta 185 1/s; the other fields 0)"
    )


def test_drawn_parameters_are_named_with_the_preset(site):
    dem, _ = site
    record = build_run(config(dem, preset="medium", uncertainty="sets")).soil_record
    assert record["soils"]["soil"]["uncertainty"] == "sets"
    assert "; drawn per rock: sets)" in soil_text(record)


def test_a_built_in_terrain_names_its_own_soil():
    """slope40 without a soil preset runs on lu2019 (the model it reproduces): its record and
    the resolved configuration name lu2019, not the configuration's default medium; the
    resolved solver settings are every field of the options record."""
    plain = validate({"rocks": 1})
    setup = build_run(plain)
    assert soil_text(setup.soil_record) == (
        "soil: lu2019 (mu_min 0.55, mu_max 2, kappa 3 1/m, beta 185 1/s; the other fields 0)"
    )
    resolved = resolved_config(plain, setup, {})
    assert resolved["soil"]["preset"] == "lu2019" and resolved["soil"]["rolling_resistance"] == 0
    assert set(resolved["solver"]) >= {"gap_tol", "pgs_tol", "rest_speed", "gravity"}
    named = build_run(validate({"rocks": 1, "soil": {"preset": "medium"}}))
    assert list(named.soil_record["presets"]) == ["medium"]
