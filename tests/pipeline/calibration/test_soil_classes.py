"""``tumble rockfall calibrate`` with a soil map: free fields per soil class
(``--free 2.rolling_resistance=0:0.8``) on the two-class site of
``examples/calibration/make_site.py --classes`` (class 1 the slope, class 2 the flat ground,
the blocks came down with ``rolling_resistance = 0.3`` on class 2 only)."""

from __future__ import annotations

import runpy
import tomllib
from pathlib import Path

import numpy as np
import pytest

from tumble.cli.main import main
from tumble.errors import ConfigError
from tumble.io.config import load_config
from tumble.pipeline.calibration.site import parse_free, site_of
from tumble.rockfall import Soil

MAKE_SITE = Path(__file__).parents[3] / "examples" / "calibration" / "make_site.py"
TRUTH = 0.3


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    write_site = runpy.run_path(str(MAKE_SITE))["write_site"]
    return write_site(tmp_path_factory.mktemp("map"), n=40, held_out=10, seed=1, classes=True)


def test_a_class_field_is_set_on_that_class_only(site):
    calibration_site = site_of(load_config(site / "site.toml"))
    soil = calibration_site.soil_with({"2.rolling_resistance": 0.3, "1.mu_min": 2.5})
    codes = calibration_site.soil_codes
    assert set(np.unique(codes)) == {1, 2}
    np.testing.assert_array_equal(soil.rolling_resistance, np.where(codes == 2, 0.3, 0.0))
    # a mu_min above lu2019's mu_max (2.0) raises mu_max to it, on class 1 only
    np.testing.assert_array_equal(soil.mu_min, np.where(codes == 1, 2.5, 0.55))
    np.testing.assert_array_equal(soil.mu_max, np.where(codes == 1, 2.5, 2.0))
    assert soil.kappa == Soil.preset("lu2019").kappa


def test_recovers_the_rolling_resistance_of_class_2(site, tmp_path):
    out = tmp_path / "calib"
    argv = ["rockfall", "calibrate", "--config", str(site / "site.toml")]
    argv += ["--observations", str(site / "stops.csv"), "--free", "2.rolling_resistance=0:0.8"]
    argv += ["--points", "12", "--orientations", "3", "--no-figures", "--threads", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    result = tomllib.loads((out / "calibration.toml").read_text())
    classes = result["soil"]["classes"]
    best = classes["2"]["rolling_resistance"]
    span = [s["classes"]["2"]["rolling_resistance"] for s in result["sets"]]
    assert span, "no equivalent set"
    assert min(span) <= TRUTH <= max(span)
    assert abs(best - TRUTH) < 0.1
    # class 1 keeps the configuration's soil, every field named
    assert classes["1"] == {k: float(v) for k, v in Soil.preset("lu2019").__dict__.items()}
    # a run on the map takes class 2's best set from the file
    text = (site / "site.toml").read_text()
    text = text.replace("[soil]\n", f'[soil]\ncalibration = "{out / "calibration.toml"}"\n')
    (site / "run.toml").write_text(f"rocks = 1\n{text}[release]\npoint = [5.0, 0.0]\n")
    from tumble.rockfall.site.from_config import build_run

    setup = build_run(load_config(site / "run.toml"))
    codes = site_of(load_config(site / "site.toml")).soil_codes
    expected = np.where(codes == 2, best, 0.0)
    np.testing.assert_array_equal(setup.ensemble.soil.rolling_resistance, expected)
    with pytest.raises(ValueError, match="calibrates the classes of a soil map"):
        Soil.from_calibration(out / "calibration.toml")


def test_a_class_field_needs_a_map_and_a_known_class(site, tmp_path):
    single = tmp_path / "single.toml"
    single.write_text(f'dem = "{site / "slope.asc"}"\n[soil]\npreset = "lu2019"\n')
    with pytest.raises(ConfigError, match=r"needs a configuration with \[soil\] map"):
        site_of(load_config(single)).check_free(parse_free(["2.rolling_resistance=0:1"]))
    with pytest.raises(ConfigError, match=r"soil class 5 is not in \[soil\.classes\]"):
        site_of(load_config(site / "site.toml")).check_free(parse_free(["5.drag=0:1"]))
    with pytest.raises(ConfigError, match="'a' is not a soil class code"):
        parse_free(["a.drag=0:1"])
