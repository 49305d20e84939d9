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


@pytest.fixture(scope="module")
def kept_run(dem, tmp_path_factory):
    """A run with an observation line that kept every trajectory at every step."""
    folder = tmp_path_factory.mktemp("kept")
    (folder / dem.name).write_bytes(dem.read_bytes())
    line = [[X0 + 30.0, Y0 + 2.0], [X0 + 30.0, Y0 + 38.0]]
    config = folder / "run.toml"
    config.write_text(
        f'dem = "{dem.name}"\nrocks = 6\nt_max = 8.0\nseed = 4\n\n[release]\n'
        f"point = [{X0 + 3.0}, {Y0 + 20.0}]\n\n"
        f'[[barrier]]\nname = "obs"\nline = {line}\n\n'
        "[output]\ntrajectories = 6\ntrajectory_every = 1\nfigures = false\n\n"
        # no rolling resistance: the rocks run past the lines the tests add further down
        '[soil]\npreset = "lu2019"\n'
    )
    out = folder / "run"
    assert main(["rockfall", "run", "--config", str(config), "--out", str(out), "--quiet"]) == 0
    return out


def test_barriers_replayed_from_a_run_equal_the_run_s_own(kept_run, tmp_path, capsys):
    """Trajectories kept at every step: the replayed crossings are the run's (1e-9) and the
    statistics, bootstrap intervals and design values are equal."""
    out = tmp_path / "replayed"
    code = main(["rockfall", "barriers", str(kept_run), "--out", str(out), "--no-figures"])
    assert code == 0, capsys.readouterr().err
    assert "line 'obs':" in capsys.readouterr().out
    run = pq.read_table(kept_run / "crossings.parquet").to_pydict()
    replayed = pq.read_table(out / "crossings.parquet").to_pydict()
    assert run.keys() == replayed.keys() and len(run["rock"]) > 0
    for name, values in run.items():
        if isinstance(values[0], str):
            assert replayed[name] == values, name
        else:
            np.testing.assert_allclose(replayed[name], values, rtol=0, atol=1e-9, err_msg=name)
    summary = json.loads((kept_run / "summary.json").read_text())["barriers"][0]
    report = json.loads((out / "barriers.json").read_text())
    assert report["n_rocks"] == 6 and report["warnings"] == []
    mine = report["barriers"][0]
    for key in ("kinetic_energy_kJ", "passing_height_m", "top_height_m"):
        for stat in ("p50", "p95", "max"):
            assert mine[key][stat] == pytest.approx(summary[key][stat], abs=1e-9)
        np.testing.assert_allclose(mine[key]["p95_ci"], summary[key]["p95_ci"], atol=1e-9)
    assert mine["design"]["E_d_kJ"] == pytest.approx(summary["design"]["E_d_kJ"], abs=1e-9)


def test_a_new_line_and_a_net_from_the_command_line(kept_run, tmp_path, capsys):
    """A line further down, given as --line with --height and --capacity: every crossing lies on
    it, the net's first-crossing outcomes follow its height and capacity, figures are written."""
    out = tmp_path / "net"
    x = X0 + 45.0
    code = main(
        [
            "rockfall",
            "barriers",
            str(kept_run),
            "--line",
            f"{x},{Y0 + 1.0}",
            f"{x},{Y0 + 39.0}",
            "--name",
            "fence B",
            "--height",
            "1.0",
            "--capacity",
            "5",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert "net 'fence B'" in capsys.readouterr().out
    table = pq.read_table(out / "crossings.parquet").to_pydict()
    assert table["x"] and all(abs(v - x) < 1e-9 for v in table["x"])
    for height, energy, outcome, direction in zip(
        table["passing_height_m"],
        table["kinetic_energy_kJ"],
        table["outcome"],
        table["direction"],
        strict=True,
    ):
        if direction != "downslope":
            continue
        expected = "overtopped" if height > 1.0 else ("caught" if energy <= 5 else "broke_through")
        assert outcome == expected
    assert (out / "figures" / "barrier_fence_b_exceedance.png").is_file()
    assert json.loads((out / "barriers.json").read_text())["warnings"]  # the net caveat


def test_uphill_per_line_from_the_command_line(kept_run, tmp_path, capsys):
    """The run's line drawn again with --uphill per line: "left" (the release's side, x < 30,
    seen along +y) counts the run's crossings downslope; "right" counts them all upslope."""
    line = [f"{X0 + 30.0},{Y0 + 2.0}", f"{X0 + 30.0},{Y0 + 38.0}"]
    out = tmp_path / "sides"
    argv = ["rockfall", "barriers", str(kept_run), "--no-figures", "--out", str(out)]
    argv += ["--line", *line, "--name", "as run", "--uphill", "left"]
    argv += ["--line", *line, "--name", "reversed", "--uphill", "right"]
    code = main(argv)
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "line 'as run': " in printed.out and "downslope (from its left)" in printed.out
    assert "line 'reversed': 0 rocks crossed downslope (from its right), " in printed.out
    summary = json.loads((kept_run / "summary.json").read_text())["barriers"][0]
    as_run, reversed_ = json.loads((out / "barriers.json").read_text())["barriers"]
    assert as_run["uphill_from"] == reversed_["uphill_from"] == "configuration"
    assert as_run["rocks_crossing"] == summary["rocks_crossing"] > 0
    assert reversed_["crossings_upslope"] == summary["crossings_downslope"]
    assert reversed_["crossings_downslope"] == summary["crossings_upslope"]
    with pytest.raises(SystemExit):
        main(["rockfall", "barriers", str(kept_run), "--line", *line, "--uphill", "up"])
    assert "invalid choice: 'up'" in capsys.readouterr().err


def test_barriers_refuses_what_it_cannot_replay(kept_run, tmp_path, capsys):
    plain = tmp_path / "plain"
    plain.mkdir()
    code = main(["rockfall", "barriers", str(plain)])
    assert code == 2 and "no trajectories" in capsys.readouterr().err
    code = main(
        [
            "rockfall",
            "barriers",
            str(kept_run),
            "--line",
            "1,2",
            "3,4",
            "--name",
            "a",
            "--name",
            "b",
        ]
    )
    assert code == 2 and "--name is given 2 time(s) for 1 --line(s)" in capsys.readouterr().err
    code = main(["rockfall", "barriers", str(kept_run), "--out", str(kept_run)])
    assert code == 2 and "must not be the run folder" in capsys.readouterr().err
    code = main(["rockfall", "barriers", str(kept_run), "--line", "0,0", "1,1"])
    err = capsys.readouterr().err
    assert code == 2 and "outside the DEM" in err
    assert not (kept_run / "barriers").exists()
