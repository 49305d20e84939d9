"""The example site (examples/site) end to end, small: release areas with frequencies, two rock
classes, a barrier line from a file; per-source and per-class results, hazard zoning that does
not depend on chunking, and bad inputs that leave nothing behind."""

import csv
import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import rasterio

from tumble.cli.main import main
from tumble.io.config import load_config
from tumble.rockfall.ensemble import reduce_chunks
from tumble.rockfall.site.areas import largest_remainder
from tumble.rockfall.site.from_config import build_run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("make_site", EXAMPLE / "make_site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = tmp_path_factory.mktemp("site")
    module.write_site(folder)
    shutil.copy(EXAMPLE / "site.toml", folder / "site.toml")
    return folder


def test_example_site_end_to_end(site, tmp_path, capsys):
    with rasterio.open(site / "dem.tif") as dataset:
        heights = dataset.read(1, masked=True)
    assert 0 < np.ma.count_masked(heights) < heights.size // 100  # the example's nodata hole
    out = tmp_path / "run"
    code = main(
        [
            "rockfall",
            "run",
            "--config",
            str(site / "site.toml"),
            "rocks=12",
            "t_max=4",
            "output.figures=false",
            "output.trajectories=2",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    with open(out / "deposits.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 12
    for column in ("source", "rock_class", "mass_kg", "release_x", "release_y", "runout_m"):
        assert column in rows[0]
    summary = json.loads((out / "summary.json").read_text())
    sources = summary["sources"]
    assert [s["name"] for s in sources] == ["north face", "south face"]
    assert [s["frequency"] for s in sources] == [0.5, 0.2]
    resolved = json.loads((out / "provenance.json").read_text())["config"]["resolved"]
    areas = [a["area_m2"] for a in resolved["release"]["sources"]]
    expected = largest_remainder(areas, 12).tolist()
    assert [s["rocks"] for s in sources] == expected
    assert [r["source"] for r in rows] == ["north face"] * expected[0] + ["south face"] * expected[
        1
    ]
    classes = summary["classes"]
    assert [c["name"] for c in classes] == ["small", "large"]
    assert sum(c["rocks"] for c in classes) == 12
    small = [float(r["mass_kg"]) for r in rows if r["rock_class"] == "small"]
    assert small == [200.0] * classes[0]["rocks"]
    with rasterio.open(out / "rasters" / "hazard_zone.tif") as dataset:
        zone = dataset.read(1)
        assert dataset.dtypes[0] == "uint8"
        assert "hazard zone" in dataset.descriptions[0]
    assert set(np.unique(zone)) <= {0, 1, 2, 3, 255} and zone[zone < 255].max() > 0
    assert np.array_equal(zone == 255, np.ma.getmaskarray(heights))  # nodata in the hole only
    for name in ("reach_frequency", "frequency_exceeding_30kJ", "frequency_exceeding_300kJ"):
        assert (out / "rasters" / f"{name}.tif").is_file()
    report = (out / "report.html").read_text()
    assert "Release sources" in report and "north face" in report and "Rock classes" in report
    # the area of each zone: its cells of hazard_zone.tif times the cell area
    with rasterio.open(out / "rasters" / "hazard_zone.tif") as dataset:
        cell = abs(dataset.transform.a * dataset.transform.e)
    zoning = summary["zoning"]
    for code, name in ((1, "yellow"), (2, "blue"), (3, "red")):
        cells = int(np.sum(zone == code))
        assert zoning["areas"][name]["cells"] == cells
        assert zoning["areas"][name]["ha"] == pytest.approx(cells * cell / 1e4, rel=1e-12)
    assert zoning["energy_thresholds_kJ"] == [30.0, 300.0]
    assert "<h2>Hazard zones</h2>" in report and "strong above 300 kJ" in report
    # the sources of the most hazardous cell give its zone and frequencies
    from tumble.pipeline.sources import sources_at

    row, col = np.argwhere(zone == zone[zone < 255].max())[0]
    with rasterio.open(out / "rasters" / "reach_frequency.tif") as dataset:
        x, y = dataset.xy(row, col)
        frequency = float(dataset.read(1)[row, col])
    values = sources_at(out, at=(x, y))["values"]
    assert values["hazard_zone"] == zone[row, col]
    assert values["reach_frequency"] == pytest.approx(frequency, rel=1e-7)
    assert main(["rockfall", "sources", str(out), "--at", f"{x},{y}"]) == 0
    names = {1: "yellow", 2: "blue", 3: "red"}
    assert (
        f"hazard_zone: {names[int(zone[row, col])]} ({zone[row, col]})" in capsys.readouterr().out
    )


def test_zoning_and_statistics_do_not_depend_on_chunking(site):
    config = load_config(site / "site.toml", overrides=["rocks=10", "t_max=3"])
    outcomes = []
    for size in (3, 10):
        setup = build_run(config)
        ensemble = setup.ensemble
        chunks = [ensemble.run_chunk(a, b) for a, b in ensemble.chunks(size)]
        result = reduce_chunks(ensemble, chunks, wall_time=1.0)
        assert setup.site is not None
        zoning = setup.site.apply(result)
        outcomes.append((result, zoning))
    (a, za), (b, zb) = outcomes
    assert json.dumps(a.summary["sources"]) == json.dumps(b.summary["sources"])
    assert json.dumps(a.summary["classes"]) == json.dumps(b.summary["classes"])
    for name in za:
        np.testing.assert_array_equal(za[name], zb[name])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("rock.classes=[{name='a', share=0.5, mass=100.0}]", "sum to 0.5"),
        ("release.name_field=nom", "no field 'nom'"),
        ("release.weight_field=name", "must be a non-negative number"),
    ],
)
def test_bad_site_inputs_leave_nothing(site, tmp_path, capsys, override, message):
    out = tmp_path / "run"
    code = main(
        ["rockfall", "run", "--config", str(site / "site.toml"), override, "--out", str(out)]
    )
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_example_site_with_a_relative_out_folder(site, tmp_path, monkeypatch, capsys):
    """As the README runs it: from the working directory, --out relative to it, with figures."""
    monkeypatch.chdir(tmp_path)
    args = ["rockfall", "run", "--config", str(site / "site.toml"), "rocks=4", "t_max=2"]
    code = main([*args, "output.trajectories=1", "--quiet", "--out", "out/site"])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "site" / "report.html").is_file()
    assert (tmp_path / "out" / "site" / "figures" / "report_hazard_zone.png").is_file()
