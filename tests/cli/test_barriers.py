"""Barriers from the command line: inline in the configuration and from a GeoJSON file given
with --barriers; crossings.parquet, summary["barriers"], the figures and the report."""

import json
import math

import numpy as np
import pyarrow.parquet as pq
import pytest

from tumble.cli.main import main
from tumble.rockfall import Terrain

CRS = "EPSG:2056"
X0, Y0 = 2600000.0, 1200000.0


@pytest.fixture(scope="module")
def dem(tmp_path_factory):
    x = np.arange(81.0)
    z = np.maximum(50.0 - x, 0.0) * math.tan(math.radians(35.0))
    terrain = Terrain.from_array(np.broadcast_to(z, (41, 81)), x0=X0, y0=Y0, dx=1.0, crs=CRS)
    path = tmp_path_factory.mktemp("dem") / "slope.tif"
    terrain.write(path)
    return path


def test_inline_and_file_barriers_end_to_end(dem, tmp_path, capsys):
    line = [[X0 + 30.0, Y0 + 2.0], [X0 + 30.0, Y0 + 38.0]]
    config = tmp_path / "run.toml"
    config.write_text(
        f'dem = "{dem.name}"\nrocks = 8\nt_max = 10.0\n\n[release]\n'
        f"point = [{X0 + 3.0}, {Y0 + 20.0}]\n\n"
        f'[[barrier]]\nname = "fence A"\nline = {line}\nheight = 4.0\ncapacity = 2000.0\n\n'
        "[design]\ngamma_tr = 1.02\n"
    )
    (tmp_path / dem.name).write_bytes(dem.read_bytes())
    lines_file = tmp_path / "lines.geojson"
    feature = {
        "type": "Feature",
        "properties": {"name": "observation B"},
        "geometry": {
            "type": "LineString",
            "coordinates": [[X0 + 60.0, Y0 + 2.0], [X0 + 60.0, Y0 + 38.0]],
        },
    }
    lines_file.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2056"}},
                "features": [feature],
            }
        )
    )
    out = tmp_path / "run"
    code = main(
        [
            "rockfall",
            "run",
            "--config",
            str(config),
            "--barriers",
            str(lines_file),
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "net 'fence A':" in printed and "line 'observation B':" in printed
    summary = json.loads((out / "summary.json").read_text())
    fence, line_b = summary["barriers"]
    assert fence["name"] == "fence A" and fence["kind"] == "net"
    assert line_b["name"] == "observation B" and line_b["kind"] == "line"
    assert fence["design"]["gamma_tr"] == 1.02 and fence["design"]["gamma_dp"] == 1.10
    table = pq.read_table(out / "crossings.parquet").to_pydict()
    required = {
        "rock",
        "barrier",
        "t_s",
        "x",
        "y",
        "passing_height_m",
        "top_height_m",
        "velocity_ms",
        "kinetic_energy_kJ",
        "rotational_energy_kJ",
        "rotational_velocity_rad_s",
        "mass_kg",
        "direction",
        "outcome",
    }
    assert required <= set(table)
    at_fence = [i for i, b in enumerate(table["barrier"]) if b == "fence A"]
    assert at_fence and all(abs(table["x"][i] - (X0 + 30.0)) < 1e-6 for i in at_fence)
    first = {}
    for i in at_fence:
        if table["direction"][i] == "downslope":
            first.setdefault(table["rock"][i], i)
    energies = np.array([table["kinetic_energy_kJ"][i] for i in first.values()])
    assert fence["rocks_crossing"] == len(first)
    assert fence["kinetic_energy_kJ"]["p95"] == pytest.approx(np.percentile(energies, 95))
    slug = "fence_a"
    for suffix in ("exceedance", "along"):
        assert (out / "figures" / f"barrier_{slug}_{suffix}.png").stat().st_size > 5_000
    report = (out / "report.html").read_text()
    assert "fence A" in report and "E_d (kJ)" in report
    record = json.loads((out / "provenance.json").read_text())
    assert "barrier.0.file" in record["inputs"] or any(
        "lines.geojson" in v["path"] for v in record["inputs"].values()
    )
