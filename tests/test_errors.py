"""tumble's errors (``tumble.errors``): a configuration error carries its key and names it, a
refused DEM or data file has its own class, all are ValueErrors, and the command line reports
any of them as one line and exit status 2."""

import numpy as np
import pytest

from tumble.cli import spin
from tumble.cli.main import main
from tumble.errors import ConfigError, DataError, DemError, TumbleError
from tumble.io.config import load_config, validate
from tumble.io.dem import write_raster
from tumble.rockfall import Terrain
from tumble.rockfall.site.from_config import build_run

#: a vertical line across the slope40 scenario (x in [0, 100] m, y in [-25, 25] m)
ON_SLOPE = [[40.0, 0.0], [40.0, 5.0]]


@pytest.fixture
def geographic(tmp_path):
    """A 40 x 30 sample DEM in WGS 84 (degrees), heights 1000 m."""
    path = tmp_path / "wgs84.tif"
    write_raster(path, np.full((30, 40), 1000.0), 8.5, 46.8, 0.001, 0.001, crs="EPSG:4326")
    return path


# --- the family --------------------------------------------------------------------------------


def test_the_errors_about_values_are_value_errors_of_one_family():
    for kind in (ConfigError, DataError, DemError):
        assert issubclass(kind, TumbleError) and issubclass(kind, ValueError)
    assert issubclass(DemError, DataError)
    assert not issubclass(ValueError, TumbleError)


@pytest.mark.parametrize(
    ("message", "key", "text"),
    [
        ("must be positive", "release.height", "release.height: must be positive"),
        ("soil mu_max must be at least mu_min", "soil", "soil mu_max must be at least mu_min"),
        ("unknown key 'rock.colour'", "rock.colour", "unknown key 'rock.colour'"),
        ("soil.map holds class 3", "soil", "soil: soil.map holds class 3"),
        ("topsoil is wet", "soil", "soil: topsoil is wet"),
        ("config file x.toml does not exist", None, "config file x.toml does not exist"),
    ],
)
def test_a_config_error_names_its_key(message, key, text):
    """The message is kept when it names the key as a whole dotted name, else prefixed."""
    err = ConfigError(message, key)
    assert err.key == key and str(err) == text


# --- configuration keys ------------------------------------------------------------------------


def test_an_unknown_key_is_a_config_error_with_that_key():
    with pytest.raises(ConfigError, match=r"unknown key 'rock\.colour'") as info:
        validate({"rock": {"colour": "red"}})
    assert info.value.key == "rock.colour"
    assert isinstance(info.value, ValueError)


def test_a_bad_override_carries_its_key():
    with pytest.raises(ValueError) as info:
        load_config(overrides=["release.height=-1"])
    assert isinstance(info.value, ConfigError) and info.value.key == "release.height"
    assert "release.height" in str(info.value)


@pytest.mark.parametrize("field", ["mu_min", "kappa", "restitution", "drag_height"])
@pytest.mark.parametrize("value", [True, [1.0], {"a": 1.0}])
def test_a_soil_value_of_the_wrong_type_names_its_field(field, value):
    with pytest.raises(ConfigError) as info:
        validate({"soil": {field: value}})
    assert info.value.key == f"soil.{field}"
    assert f"soil.{field}" in str(info.value)


def test_a_soil_raster_that_cannot_be_read_names_its_field(tmp_path):
    """A soil field given as a file: the key is the field, the unreadable file is the cause."""
    config = validate({"rocks": 2, "soil": {"kappa": str(tmp_path / "none.tif")}})
    with pytest.raises(ConfigError, match=r"^soil\.kappa: .*none\.tif does not exist") as info:
        build_run(config)
    assert info.value.key == "soil.kappa"
    assert isinstance(info.value.__cause__, DataError)


def test_a_barrier_problem_carries_the_barrier_key():
    config = validate(
        {
            "rocks": 2,
            "barrier": [
                {"name": "fence", "line": ON_SLOPE},
                {"name": "far", "line": [[1000.0, 0.0], [1000.0, 5.0]]},
            ],
        }
    )
    with pytest.raises(ConfigError, match=r"barrier 'far' \(barrier\.1\): point 0") as info:
        build_run(config)
    assert info.value.key == "barrier.1.line"


def test_a_barrier_file_problem_carries_the_file_key(tmp_path):
    config = validate({"rocks": 2, "barrier": [{"name": "f", "file": str(tmp_path / "no.gpkg")}]})
    with pytest.raises(ConfigError, match="does not exist") as info:
        build_run(config)
    assert info.value.key == "barrier.0.file"
    assert isinstance(info.value.__cause__, DataError)


def test_a_rock_class_problem_names_the_class_and_its_key(tmp_path):
    classes = [
        {"name": "a", "share": 0.5, "mass": 100.0},
        {"name": "b", "share": 0.5, "shape": "file", "file": str(tmp_path / "none.stl")},
    ]
    with pytest.raises(ConfigError, match=r"rock class 'b'") as info:
        build_run(validate({"rocks": 2, "rock": {"classes": classes}}))
    assert info.value.key == "rock.classes.1.file"


# --- DEMs and data files -----------------------------------------------------------------------


def test_a_dem_in_degrees_raises_a_dem_error(geographic):
    with pytest.raises(DemError, match="degrees"):
        Terrain.from_file(geographic)


def test_a_dem_in_degrees_in_a_configuration_is_a_config_error_about_dem(geographic):
    config = validate({"dem": str(geographic), "rocks": 2, "release": {"point": [8.51, 46.81]}})
    with pytest.raises(ConfigError, match="degrees") as info:
        build_run(config)
    assert info.value.key == "dem"
    assert isinstance(info.value.__cause__, DemError)


def test_a_point_off_the_dem_and_a_dem_without_a_full_cell_are_dem_errors():
    terrain = Terrain.plane(30.0, size=(10.0, 10.0))
    with pytest.raises(DemError, match="outside the DEM, which covers x in"):
        terrain.height(50.0, 0.0)
    heights = np.full((3, 3), np.nan)
    heights[0, 0] = 1.0
    with pytest.raises(DemError, match="no cell with four valid corners"):
        Terrain.from_array(heights)


def test_unreadable_input_files_are_data_errors(tmp_path):
    from tumble.io.dem import read_raster
    from tumble.io.mesh import read_mesh, read_points
    from tumble.io.vectors import read_lines, read_polygons

    (tmp_path / "text.tif").write_text("not a raster\n")
    (tmp_path / "text.stl").write_text("hello\n")
    (tmp_path / "points.xyz").write_text("1 2 x\n")
    for read, name in [
        (read_raster, "text.tif"),
        (read_raster, "none.asc"),
        (read_mesh, "text.stl"),
        (read_points, "points.xyz"),
        (read_lines, "none.gpkg"),
        (read_polygons, "none.gpkg"),
    ]:
        with pytest.raises(DataError, match=name.replace(".", r"\.")):
            read(tmp_path / name)


# --- the command line --------------------------------------------------------------------------


def test_the_cli_reports_any_tumble_error_as_one_line(monkeypatch, capsys):
    """Not only the errors that are ValueErrors: the base class itself."""

    def fail(args):
        raise TumbleError("the input was refused")

    monkeypatch.setattr(spin, "run", fail)
    assert main(["spin"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "tumble spin: error: the input was refused\n"
    assert "Traceback" not in captured.out + captured.err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["soil.mu_min=true"], ["soil.mu_min"]),
        (["barrier=[{name = 'far', line = [[1000, 0], [1000, 5]]}]"], ["barrier.0", "far"]),
        (["--dem", "{dem}", "release.point=[8.51, 46.81]"], ["degrees", "wgs84.tif"]),
    ],
)
def test_the_cli_exits_2_with_the_message_of_a_config_error(
    args, words, geographic, tmp_path, capsys
):
    args = [a.replace("{dem}", str(geographic)) for a in args]
    out = tmp_path / "out"
    status = main(["rockfall", "run", *args, "--rocks", "2", "--quiet", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith("tumble rockfall: error: ")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    for word in words:
        assert word in captured.err
    assert not out.exists()
