"""``tumble rockfall run`` and ``compare`` end to end on a small DEM: every listed output, rasters
georeferenced like the DEM, configuration files with overrides, resumed runs, and bad
configurations refused before any work."""

import json
import math

import numpy as np
import pyarrow.parquet as pq
import pytest
import rasterio

from tumble.cli.main import main
from tumble.io.config import load_config
from tumble.io.overrides import apply_overrides
from tumble.rockfall import Terrain
from tumble.rockfall.ensemble import RASTERS

CRS = "EPSG:2056"


@pytest.fixture(scope="module")
def dem(tmp_path_factory):
    """A 50 m long, 30 m wide 35 degree slope with a 20 m flat foot, 1 m grid, Swiss CRS, with
    an origin that is not zero."""
    x = np.arange(51.0)
    z = np.maximum(30.0 - x, 0.0) * math.tan(math.radians(35.0))
    heights = np.broadcast_to(z, (31, 51))
    terrain = Terrain.from_array(heights, x0=2600000.0, y0=1200000.0, dx=1.0, crs=CRS)
    path = tmp_path_factory.mktemp("dem") / "slope.tif"
    terrain.write(path)
    return path


def run(dem, out, *extra) -> int:
    return main(
        [
            "rockfall",
            "run",
            "--dem",
            str(dem),
            "--release",
            "2600003,1200015",
            "--t-max",
            "6",
            "--out",
            str(out),
            *extra,
        ]
    )


def test_run_writes_every_output_georeferenced_like_the_dem(dem, tmp_path, capsys):
    out = tmp_path / "run"
    code = run(dem, out, "--rocks", "10", "--chunk-size", "4", "--ascii", "output.trajectories=3")
    assert code == 0
    assert "10 rocks (implicit)" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_rocks"] == 10 and summary["scheme"] == "implicit"
    assert summary["dt"] == 0.002 and summary["seed"] == 0
    for name in ("kinetic_energy_kJ", "velocity_ms", "rotational_velocity_rps", "jump_height_m"):
        assert set(summary[name]["path"]) == {"mean", "std", "samples"}
        assert set(summary[name]["rock_max"]) == {
            *("mean", "std", "p50", "p95", "max", "p50_ci", "p95_ci")
        }
    assert set(summary["runout_m"]) == {"mean", "std", "p50", "p95", "max", "p50_ci", "p95_ci"}
    assert set(summary["lateral_spread_m"]) == {"std", "p95"}
    assert sum(summary["fractions"].values()) == pytest.approx(1.0)
    assert summary["wall_time_s"] > 0 and summary["rock_steps_per_s"] > 0
    with rasterio.open(dem) as source:
        transform, crs = source.transform, source.crs
    for name in RASTERS:
        for suffix in (".tif", ".asc"):
            assert (out / "rasters" / f"{name}{suffix}").is_file(), name + suffix
        with rasterio.open(out / "rasters" / f"{name}.tif") as raster:
            assert raster.transform == transform and raster.crs == crs
    with rasterio.open(out / "rasters" / "passing_count.tif") as raster:
        passing = raster.read(1, masked=True)  # nodata where no rock came
    assert passing.max() <= 10 and passing.sum() > 10
    deposits = (out / "deposits.csv").read_text().splitlines()
    assert len(deposits) == 11 and deposits[0].startswith("rock,x,y,z,status,t_s")
    table = pq.read_table(out / "trajectories.parquet")
    kept = summary["trajectories"]["rocks"]
    assert len(kept) == 3 and kept[0] == 0
    assert set(table.column("rock").to_pylist()) == set(kept)
    for figure in ("energy_map.png", "profile.png", "histograms.png"):
        assert (out / "figures" / figure).stat().st_size > 10_000
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["config"]["resolved"]["rocks"] == 10
    assert provenance["config"]["resolved"]["output"]["trajectories"] == 3
    assert not list(out.glob(".outputs-partial-*"))
    # a finished run is not recomputed; without --resume the directory is refused
    assert run(dem, out, "--rocks", "10", "--resume") == 0
    assert "nothing to do" in capsys.readouterr().out
    assert run(dem, out, "--rocks", "10") == 2
    assert "--resume" in capsys.readouterr().err


def test_single_rock_writes_its_trajectory(dem, tmp_path):
    out = tmp_path / "one"
    assert run(dem, out, "--rocks", "1", "--scheme", "explicit", "--no-figures") == 0
    csv = (out / "trajectory.csv").read_text().splitlines()
    header = csv[0].split(",")
    for column in ("t", "x", "qw", "vx", "omega_z", "kinetic_energy_J", "in_contact", "mu"):
        assert column in header
    assert "slippage_m" in header and "height_m" in header
    table = pq.read_table(out / "trajectory.parquet")
    assert table.num_rows == len(csv) - 1
    summary = json.loads((out / "summary.json").read_text())
    steps = summary["rock_steps"]
    assert table.num_rows == steps + 1  # every step and the release


def test_config_file_and_overrides(tmp_path, dem):
    config = tmp_path / "run.toml"
    config.write_text(
        f'dem = "{dem}"\nrocks = 3\nscheme = "explicit"\n\n[release]\n'
        'point = [2600003.0, 1200015.0]\nheight = 2.0\n\n[rock]\nshape = "box"\n'
        "box = [0.6, 0.5, 0.4]\n"
    )
    resolved = load_config(config, {"rocks": 4}, ["release.height=1.5", "soil.preset=l14_scarring"])
    assert resolved.rocks == 4 and resolved.release.height == 1.5
    assert resolved.rock.box == (0.6, 0.5, 0.4) and resolved.soil.preset == "l14_scarring"
    assert apply_overrides({}, ["a.b.c=[1, 2]", "d=word"]) == {
        "a": {"b": {"c": [1, 2]}},
        "d": "word",
    }
    out = tmp_path / "cfg"
    assert main(["rockfall", "run", "--config", str(config), "--out", str(out), "t_max=3"]) == 0
    provenance = json.loads((out / "provenance.json").read_text())["config"]["resolved"]
    assert provenance["t_max"] == 3.0 and provenance["rock"]["shape"] == "box"


def test_paths_in_a_config_file_are_relative_to_its_folder(tmp_path, dem, monkeypatch):
    """A DEM named relative to the TOML file is found from any working directory; a DEM named
    on the command line is relative to the working directory."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "slope.tif").write_bytes(dem.read_bytes())
    (site / "run.toml").write_text(
        'dem = "slope.tif"\nrocks = 2\n\n[release]\npoint = [2600003.0, 1200015.0]\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config("../site/run.toml")
    assert config.dem == str((site / "slope.tif").resolve())
    assert load_config("../site/run.toml", {"dem": "mine.tif"}).dem == "mine.tif"
    assert load_config("../site/run.toml", None, ["dem=other.tif"]).dem == "other.tif"
    out = tmp_path / "out"
    assert main(["rockfall", "run", "--config", "../site/run.toml", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["n_rocks"] == 2


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        (["release.hieght=2"], "release.hieght"),
        (["rock.mass=-5"], "rock.mass"),
        (["--release", "2600080,1200015"], "release.point"),
        (["soil.preset=clay"], "soil.preset"),
    ],
)
def test_bad_configurations_fail_before_any_work(dem, tmp_path, capsys, extra, field):
    out = tmp_path / "bad"
    assert run(dem, out, "--rocks", "3", *extra) == 2
    assert field in capsys.readouterr().err
    assert not out.exists()


def test_a_release_too_low_for_the_rock_is_lifted_and_reported(dem, tmp_path, capsys):
    """0.05 m is less than any EOTA221 rock's lowest vertex lies below its centre: on the flat
    foot every rock is lifted until its lowest vertex is 0.05 m above the ground: its lowest
    vertex lay ``depth - 0.05`` m under the flat ground, so the lift is exactly ``depth``, how far
    that vertex lies below the centre; and the run says so."""
    out = tmp_path / "low"
    code = run(dem, out, "--rocks", "3", "--t-max", "1", "--no-figures")
    assert code == 0
    code = run(
        dem,
        tmp_path / "lifted",
        "--rocks",
        "3",
        "--t-max",
        "1",
        "--no-figures",
        "release.height=0.05",
        "--release",
        "2600040,1200015",
    )
    assert code == 0
    assert "3 of 3 rocks did not fit at release.height = 0.05 m" in capsys.readouterr().err
    summary = json.loads((tmp_path / "lifted" / "summary.json").read_text())
    report = summary["release"]
    assert report["adjusted"] == 3 and report["moved"] == 0 and report["clearance"] == "vertical"
    assert any("did not fit" in w for w in summary["warnings"])
    from tumble.rockfall import Rock
    from tumble.rockfall.release import Release
    from tumble.rotation.quaternion import quat_to_matrix

    rock = Rock.eota221(mass=780.0)
    start = Release(point=(2600040.0, 1200015.0), height=0.05).draw(Terrain.from_file(dem), 3, 0)
    lowest = np.einsum("nij,mj->nmi", quat_to_matrix(start.orientation), rock.vertices)[..., 2]
    depth = -lowest.min(axis=1)  # the lowest vertex below the centre, per rock
    np.testing.assert_allclose(report["lift_max_m"], depth.max(), rtol=1e-9)
    np.testing.assert_allclose(report["lift_median_m"], np.median(depth), rtol=1e-9)
    assert json.loads((out / "summary.json").read_text())["release"]["adjusted"] == 0


def test_a_hole_in_the_dem_is_outside_the_domain(dem, tmp_path):
    """A nodata hole across the slope below the release: rocks that reach it leave the domain,
    none stops in it, no output holds NaN outside the rasters' nodata, and the rasters are
    nodata in the hole."""
    terrain = Terrain.from_file(dem)
    heights = terrain.heights.copy()
    heights[12:19, 20:24] = np.nan  # 4 samples long, 7 wide, right below the release
    holed = tmp_path / "holed.tif"
    from tumble.io.dem import write_raster

    write_raster(holed, heights, terrain.x0, terrain.y0, 1.0, 1.0, crs=CRS)
    out = tmp_path / "holed"
    assert run(holed, out, "--rocks", "6", "--no-figures") == 0

    def no_nan(text):
        raise AssertionError(f"{text} in summary.json")

    summary = json.loads((out / "summary.json").read_text(), parse_constant=no_nan)
    assert summary["fractions"]["left_domain"] > 0
    import csv

    with open(out / "deposits.csv") as handle:
        deposits = list(csv.DictReader(handle))
    for row in deposits:
        assert "nan" not in {row["x"].lower(), row["y"].lower(), row["z"].lower()}
    stopped = [(float(r["x"]), float(r["y"])) for r in deposits if r["status"] == "stopped"]
    if stopped:
        x, y = np.array(stopped).T
        assert Terrain.from_file(holed).contains(x, y).all()
    with rasterio.open(out / "rasters" / "reach_probability.tif") as ds:
        band = ds.read(1, masked=True)[::-1]
    assert band.mask[12:19, 20:24].all()
    assert (~band.mask[:, :20]).any()


def test_interrupted_cli_run_resumes_to_the_uninterrupted_result(dem, tmp_path):
    """Chunks 0 and 1 of 3 written by an interrupted run, then --resume: the rasters and the
    statistics equal those of one uninterrupted run; then compare writes the table."""
    from tumble.io.config import load_config
    from tumble.rockfall.ensemble import run_chunks
    from tumble.rockfall.site.from_config import build_ensemble

    whole, cut = tmp_path / "whole", tmp_path / "cut"
    common = ["--rocks", "6", "--chunk-size", "2", "--no-figures", "output.trajectories=0"]
    assert run(dem, whole, *common) == 0
    config = load_config(
        None,
        {"dem": str(dem), "release.point": [2600003, 1200015], "t_max": 6, "rocks": 6},
        ["output.trajectories=0"],
    )
    run_chunks(build_ensemble(config), cut, chunk_size=2, progress=False, max_chunks=2)
    assert not (cut / "summary.json").exists()
    assert run(dem, cut, *common, "--resume") == 0
    a = json.loads((whole / "summary.json").read_text())
    b = json.loads((cut / "summary.json").read_text())
    for key in ("wall_time_s", "rock_steps_per_s", "sessions"):
        a.pop(key), b.pop(key)
    assert a == b
    for name in RASTERS:
        with (
            rasterio.open(whole / "rasters" / f"{name}.tif") as ra,
            rasterio.open(cut / "rasters" / f"{name}.tif") as rb,
        ):
            assert np.array_equal(ra.read(1), rb.read(1), equal_nan=True), name
    out = tmp_path / "cmp"
    assert main(["rockfall", "compare", str(whole), str(cut), "--out", str(out)]) == 0
    rows = json.loads((out / "compare.json").read_text())["rows"]
    # Table 2 was published for slope40, not for this DEM: no published columns
    assert "published implicit" not in rows[0]
    assert rows[0]["whole"] == rows[0]["cut"]
    assert (out / "compare.csv").is_file() and (out / "compare.md").is_file()
    assert (out / "envelopes.png").stat().st_size > 10_000


def test_overrides_may_stand_on_both_sides_of_options(capsys):
    """`rocks=4 --threads 1 seed=2`: both overrides are taken, in their order; anything else
    left over is refused as before (exit status 2)."""
    from tumble.cli.main import parse

    args = parse(["rockfall", "run", "rocks=4", "--threads", "1", "seed=2", "rocks=5"])
    assert args.overrides == ["rocks=4", "seed=2", "rocks=5"] and args.threads == 1
    with pytest.raises(SystemExit) as err:
        parse(["rockfall", "run", "rocks=4", "--threads", "1", "--bogus"])
    assert err.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_start_line_report_and_records_name_the_soil_and_its_values(dem, tmp_path, capsys):
    """The start line names the preset, the field given over it and every value that is not 0;
    summary.json and provenance.json hold the preset's own values and those the run used;
    report.html shows each value with the preset's own beside a given one."""
    out = tmp_path / "soil"
    extra = ("--rocks", "2", "--no-figures", "--soil", "authume_rocky", "soil.restitution=0.2")
    assert run(dem, out, *extra) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        "tumble rockfall run: 2 rocks (implicit) on " + str(dem) + "; soil: authume_rocky with "
        "restitution 0.2 (mu_min 0.55, mu_max 2, kappa 3 1/m, beta 185 1/s, restitution 0.2, "
        "rolling_resistance 0.2; the other fields 0)"
    )
    soil = json.loads((out / "summary.json").read_text())["soil"]
    assert soil["presets"]["authume_rocky"]["rolling_resistance"] == 0.2
    assert soil["presets"]["authume_rocky"]["restitution"] == 0.0
    assert soil["soils"]["soil"]["given"] == {"restitution": 0.2}
    assert soil["soils"]["soil"]["values"]["restitution"] == 0.2
    provenance = json.loads((out / "provenance.json").read_text())["config"]
    assert provenance["soil"] == {"presets": soil["presets"], "soils": soil["soils"]}
    report = (out / "report.html").read_text()
    assert "soil: authume_rocky with restitution 0.2 (" in report
    assert "0.2 (given; authume_rocky 0)" in report
