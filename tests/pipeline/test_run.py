"""RockfallRun: the library call the command line makes gives the command line's folder; what the
folder stores for its readers (geometry.json) is what the run used, bit for bit, the barriers'
uphill sides and the release footprint included; a line replayed on the run gets the side of
the run's release, or the one given; the replay of a run's own barriers gives the run's
crossings and statistics of the rocks it kept, which come from every release area and rock
class."""

import csv
import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pyogrio
import pytest

from tumble.cli.main import main
from tumble.io.run_folder import RunPaths, shape_of
from tumble.pipeline import RockfallRun, replay_barriers
from tumble.pipeline.geometry import (
    barrier_sides_from_geometry,
    barriers_from_geometry,
    kept_bodies,
)
from tumble.rockfall.hazard.design import barrier_statistics

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "site"

SETTINGS = {"rocks": 6, "t_max": 12.0, "seed": 3, "output.trajectories": 6}
OVERRIDES = ["output.trajectory_every=1", "output.figures=false"]
LINE = [[40.0, -19.0], [40.0, 19.0]]
BARRIER = [f'barrier=[{{name = "obs", line = {json.dumps(LINE)}}}]']


@pytest.fixture(scope="module")
def library_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("library") / "run"
    run = RockfallRun.from_config(settings=SETTINGS, overrides=[*OVERRIDES, *BARRIER])
    outcome = run.run(out)
    return run, outcome


def test_hazard_rasters_zoomed_out_show_each_block_s_most_hazardous_value(library_run):
    """The run's rasters (slope40, 501 x 651 cells: two overview levels) hold in their first
    overview level each 2 x 2 block's largest kinetic energy and rock count and its smallest
    energy-line angle (the farthest reach), as numpy finds them in the full resolution."""
    import rasterio

    _, outcome = library_run
    for name, pick in (
        ("kinetic_energy_max", np.max),
        ("passing_count", np.max),
        ("energy_line_angle", np.min),
    ):
        path = outcome.folder / "rasters" / f"{name}.tif"
        with rasterio.open(path) as src:
            assert src.overviews(1) == [2, 4], name
            full = src.read(1, masked=True).astype(np.float64).filled(np.nan)
        with rasterio.open(path, overview_level=0) as src:
            zoomed = src.read(1, masked=True).astype(np.float64).filled(np.nan)
        ny, nx = full.shape
        padded = np.full((ny + ny % 2, nx + nx % 2), np.nan)
        padded[:ny, :nx] = full
        blocks = np.stack([padded[a::2, b::2] for a in (0, 1) for b in (0, 1)])
        has = ~np.isnan(blocks).all(axis=0)
        fill = -np.inf if pick is np.max else np.inf
        expected = np.where(has, pick(np.where(np.isnan(blocks), fill, blocks), axis=0), np.nan)
        assert has.sum() > 20, name
        np.testing.assert_array_equal(zoomed, expected, err_msg=name)


def test_the_library_call_gives_the_command_line_s_folder(library_run, tmp_path):
    _, outcome = library_run
    out = tmp_path / "cli"
    argv = ["rockfall", "run", "--rocks", "6", "--t-max", "12", "--seed", "3", "--quiet"]
    argv += ["output.trajectories=6", *OVERRIDES, *BARRIER, "--out", str(out)]
    assert main(argv) == 0
    a, b = RunPaths(outcome.folder), RunPaths(out)
    for name in ("deposits.csv", "crossings.parquet", "trajectories.parquet", "geometry.json"):
        assert (a.path / name).read_bytes() == (b.path / name).read_bytes(), name
    left, right = a.read_json(a.summary), b.read_json(b.summary)
    for volatile in ("wall_time_s", "rock_steps_per_s"):
        left.pop(volatile), right.pop(volatile)
    assert left == right and list(left) == list(right)
    assert outcome.summary["n_rocks"] == 6 and not outcome.reused


def test_a_finished_run_is_reused_and_other_inputs_are_refused(library_run):
    run, outcome = library_run
    again = run.run(outcome.folder, resume=True)
    assert again.reused and again.summary == outcome.summary
    other = RockfallRun.from_config(settings={**SETTINGS, "seed": 4}, overrides=OVERRIDES)
    with pytest.raises(ValueError, match="other inputs"):
        other.run(outcome.folder, resume=True)


def test_geometry_holds_the_bodies_and_barriers_the_run_used(library_run):
    run, outcome = library_run
    ensemble = run.ensemble
    record = RunPaths(outcome.folder).read_geometry()
    bodies, vertices = kept_bodies(record, ensemble.n_rocks)
    np.testing.assert_array_equal(bodies, ensemble.bodies)
    for k in range(ensemble.n_rocks):
        np.testing.assert_array_equal(vertices[k], ensemble.rock(k).vertices)
    assert barriers_from_geometry(record) == ensemble.barriers
    assert record["release"]["kind"] == "point"
    # the release point x = 10 lies left of the line x = 40 drawn along +y
    assert record["release"]["footprint"] == {"points": [[10.0, 0.0]], "weights": [1.0]}
    [side] = record["barriers"]
    assert (side["uphill"], side["uphill_from"], side["release_share_uphill"]) == (
        "left",
        "release",
        1.0,
    )
    [stats] = outcome.summary["barriers"]
    assert (stats["uphill"], stats["uphill_from"]) == ("left", "release")
    assert stats["crossings_downslope"] >= stats["rocks_crossing"] > 0
    hull = shape_of(record, 0)
    assert hull["mass_kg"] == ensemble.rock(0).mass
    # every hull vertex is a vertex of the rock; the triangles index them
    rock_vertices = {tuple(v) for v in np.asarray(ensemble.rock(0).vertices).tolist()}
    assert {tuple(v) for v in hull["vertices"]} <= rock_vertices
    assert np.asarray(hull["faces"]).max() == len(hull["vertices"]) - 1


def test_replaying_the_run_s_own_line_gives_its_crossings(library_run, tmp_path):
    """Every rock kept, every step: the replay of the observation line equals the run's own
    crossings, from the folder alone."""
    _, outcome = library_run
    replay = replay_barriers(outcome.folder, out=tmp_path / "replay", figures=False)
    ran = pq.read_table(RunPaths(outcome.folder).crossings).to_pydict()
    replayed = pq.read_table(tmp_path / "replay" / "crossings.parquet").to_pydict()
    assert ran.keys() == replayed.keys() and len(ran["rock"]) > 0
    for name, values in ran.items():
        if isinstance(values[0], str):
            assert values == replayed[name], name
        else:
            np.testing.assert_allclose(replayed[name], values, rtol=1e-9, atol=1e-9, err_msg=name)
    assert replay.barriers[0]["rocks_crossing"] == outcome.summary["barriers"][0]["rocks_crossing"]


def test_a_folder_without_geometry_is_refused_by_the_replay(library_run, tmp_path):
    import shutil

    _, outcome = library_run
    copy = tmp_path / "copy"
    shutil.copytree(outcome.folder, copy)
    (copy / "geometry.json").unlink()
    with pytest.raises(ValueError, match=r"geometry\.json"):
        replay_barriers(copy, out=tmp_path / "replay")
    assert not (tmp_path / "replay").exists()


# --------------------------------------------------------- the run's own barriers, replayed

#: a net at x = 40 m of slope40 that catches some of 12 rocks (seed 3: energies there 43-148 kJ,
#: passing heights 0.8-1.8 m), lets others break through or overtop it, and observation lines
#: above and below it
NET_RUN = {"rocks": 12, "t_max": 12.0, "seed": 3}
NET_BARRIERS = (
    "barrier=["
    '{name = "above", line = [[25.0, -19.0], [25.0, 19.0]]}, '
    '{name = "net", line = [[40.0, -19.0], [40.0, 19.0]], height = 1.4, capacity = 130.0}, '
    '{name = "below", line = [[60.0, -19.0], [60.0, 19.0]]}]'
)


def _net_run(tmp_path_factory, kept: int):
    out = tmp_path_factory.mktemp("net") / "run"
    overrides = ["output.trajectory_every=25", "output.figures=false", NET_BARRIERS]
    settings = {**NET_RUN, "output.trajectories": kept}
    run = RockfallRun.from_config(settings=settings, overrides=overrides)
    return run, run.run(out)


@pytest.fixture(scope="module")
def net_run(tmp_path_factory):
    return _net_run(tmp_path_factory, 12)


@pytest.fixture(scope="module")
def net_run_sampled(tmp_path_factory):
    return _net_run(tmp_path_factory, 5)


def _table(path) -> dict[str, np.ndarray]:
    return {k: np.asarray(v) for k, v in pq.read_table(path).to_pydict().items()}


def _assert_same(left, right, where="") -> None:
    """Equal JSON values, numbers to 1e-9 relative (1e-9 absolute near zero)."""
    if isinstance(left, dict):
        assert isinstance(right, dict) and left.keys() == right.keys(), where
        for key in left:
            _assert_same(left[key], right[key], f"{where}.{key}")
    elif isinstance(left, list):
        assert isinstance(right, list) and len(left) == len(right), where
        for k, (a, b) in enumerate(zip(left, right, strict=True)):
            _assert_same(a, b, f"{where}[{k}]")
    elif isinstance(left, float) and not isinstance(right, bool):
        assert right == pytest.approx(left, rel=1e-9, abs=1e-9, nan_ok=True), where
    else:
        assert left == right, where


def test_replaying_the_run_s_own_net_and_lines_gives_its_crossings_and_design_values(
    net_run, tmp_path
):
    """Every rock kept, one sample every 25 steps: the replay of the run's net and lines gives
    the run's crossings (the same rocks, barriers, directions and outcomes; every number to
    1e-9) and its statistics and design values; nothing is said to be interpolated."""
    _, outcome = net_run
    ran = _table(RunPaths(outcome.folder).crossings)
    assert {"caught", "broke_through", "overtopped"} <= set(ran["outcome"].tolist())
    replay = replay_barriers(outcome.folder, out=tmp_path / "replay", figures=False)
    replayed = _table(tmp_path / "replay" / "crossings.parquet")
    assert ran.keys() == replayed.keys()
    for name, values in ran.items():
        if values.dtype.kind in "iuf":
            np.testing.assert_allclose(replayed[name], values, rtol=1e-9, atol=1e-9, err_msg=name)
        else:
            assert replayed[name].tolist() == values.tolist(), name
    _assert_same(outcome.summary["barriers"], replay.barriers, "barriers")
    assert replay.report["crossings_exact"] and replay.warnings == []
    assert replay.report["rocks"] == list(range(12))
    kept = outcome.summary["trajectories"]
    assert kept["rocks"] == list(range(12)) and kept["crossings_not_reproduced"] == []


def test_the_net_s_line_replayed_as_an_observation_line_crosses_once_per_rock(net_run, tmp_path):
    """The run's net line replayed as an observation line: every kept rock that reached the net
    crosses it downslope exactly once, at the run's crossing point (1e-9 m); a caught rock, whose
    final state lies on the line up to round-off, does not cross it back upslope."""
    _, outcome = net_run
    ran = _table(RunPaths(outcome.folder).crossings)
    at_net = ran["barrier"] == "net"
    assert "caught" in set(ran["outcome"][at_net].tolist())
    line = {"name": "net line", "line": [[40.0, -19.0], [40.0, 19.0]]}
    replay_barriers(outcome.folder, [line], tmp_path / "replay", figures=False)
    replayed = _table(tmp_path / "replay" / "crossings.parquet")
    assert set(replayed["direction"].tolist()) == {"downslope"}
    assert replayed["rock"].tolist() == ran["rock"][at_net].tolist()
    for name in ("x", "y"):
        np.testing.assert_allclose(replayed[name], ran[name][at_net], rtol=0, atol=1e-9)


def test_lines_replayed_below_the_run_s_net_are_flagged_as_lower_bounds(net_run, tmp_path):
    """A weaker net and the line below it replayed on a run whose own net caught rocks: the
    rocks the run's net caught have no trajectory beyond it, so the replay names how many
    (the run's caught crossings of the kept rocks) and says the lines below are lower bounds;
    the line below sees no more rocks than in the run."""
    _, outcome = net_run
    ran = _table(RunPaths(outcome.folder).crossings)
    caught = int(np.sum((ran["barrier"] == "net") & (ran["outcome"] == "caught")))
    assert caught > 0
    entries = [
        {"name": "weak", "line": [[40.0, -19.0], [40.0, 19.0]], "height": 0.5, "capacity": 10.0},
        {"name": "below", "line": [[60.0, -19.0], [60.0, 19.0]]},
    ]
    replay = replay_barriers(outcome.folder, entries, tmp_path / "replay", figures=False)
    assert replay.report["caught_by_run_nets"] == {"net": caught}
    [flag] = [w for w in replay.warnings if "caught" in w and "lower bounds" in w]
    assert f"caught {caught} of the 12 rocks" in flag and "'net' (" in flag
    assert not any("as without the net" in w for w in replay.warnings)
    replayed = _table(tmp_path / "replay" / "crossings.parquet")
    below = set(replayed["rock"][replayed["barrier"] == "below"].tolist())
    assert below <= set(ran["rock"][ran["barrier"] == "below"].tolist())


def test_a_replay_onto_an_earlier_one_is_refused_naming_force_alone(net_run, tmp_path):
    _, outcome = net_run
    replay_barriers(outcome.folder, out=tmp_path / "replay", figures=False)
    with pytest.raises(ValueError, match="holds an earlier result") as err:
        replay_barriers(outcome.folder, out=tmp_path / "replay", figures=False)
    assert "--force replaces it" in str(err.value) and "--resume" not in str(err.value)


def test_with_fewer_kept_rocks_the_replay_gives_the_run_s_statistics_of_those_rocks(
    net_run_sampled, tmp_path
):
    """5 of 12 rocks kept: the replayed statistics are those of the run's crossings of these
    5 rocks (barrier_statistics over them, with the run's factors and seed), barriers.json
    names them, and a warning gives their share, 41.667 %."""
    run, outcome = net_run_sampled
    kept = outcome.summary["trajectories"]
    rocks = kept["rocks"]
    assert len(rocks) == 5 and rocks[0] == 0 and rocks != list(range(5))
    replay = replay_barriers(outcome.folder, out=tmp_path / "replay", figures=False)
    ran = _table(RunPaths(outcome.folder).crossings)
    mine = np.isin(ran["rock"], rocks)
    sides = barrier_sides_from_geometry(RunPaths(outcome.folder).read_geometry())
    expected = barrier_statistics(
        {k: v[mine] for k, v in ran.items()},
        run.ensemble.barriers,
        5,
        run.setup.design,
        seed=run.config.seed,
        sides=sides,
    )
    _assert_same(json.loads(json.dumps(expected)), replay.barriers, "barriers")
    assert replay.report["rocks"] == rocks and replay.report["n_rocks"] == 5
    assert replay.report["sample"]["groups"] == kept["groups"]
    [warning] = replay.warnings
    assert "5 rocks" in warning and "41.667 % of the 12 released" in warning
    assert "stratified" in warning
    # geometry.json, trajectories.parquet and the GeoPackage hold exactly the kept rocks
    paths = RunPaths(outcome.folder)
    assert paths.read_geometry()["rocks"]["rock"] == rocks
    stored = np.unique(pq.read_table(paths.trajectories).column("rock").to_numpy())
    assert stored.tolist() == rocks
    _, _, _, fields = pyogrio.raw.read(outcome.folder / "trajectories.gpkg", columns=["rock"])
    assert sorted(fields[0].tolist()) == rocks


def test_the_kept_rocks_come_from_every_release_area_and_rock_class(tmp_path):
    """The example site (two release areas, two rock classes), 16 rocks, 4 kept: one of each
    (area, class) group, not the first 4 rocks (all of one area); the summary's groups are the
    counts of deposits.csv; the report says which rocks were kept."""
    spec = importlib.util.spec_from_file_location("make_site", EXAMPLE / "make_site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_site(tmp_path)
    shutil.copy(EXAMPLE / "site.toml", tmp_path / "site.toml")
    settings = {"rocks": 16, "t_max": 3.0, "output.trajectories": 4, "output.figures": False}
    run = RockfallRun.from_config(tmp_path / "site.toml", settings=settings)
    outcome = run.run(tmp_path / "run")
    kept = outcome.summary["trajectories"]
    with open(tmp_path / "run" / "deposits.csv", newline="") as handle:
        rows = {int(r["rock"]): r for r in csv.DictReader(handle)}
    groups = {(r["source"], r["rock_class"]) for r in rows.values()}
    assert len(groups) == 4
    assert {(rows[k]["source"], rows[k]["rock_class"]) for k in kept["rocks"]} == groups
    assert {rows[k]["source"] for k in range(4)} == {"north face"}
    for group in kept["groups"]:
        members = [k for k, r in rows.items() if (r["source"], r["rock_class"]) == (
            group["source"], group["rock_class"])]  # fmt: skip
        assert group["released"] == len(members) and group["kept"] == 1
    assert RunPaths(outcome.folder).read_geometry()["rocks"]["rock"] == kept["rocks"]
    # the 3D view names each kept rock's own shape (its class's), not rock 0's
    from tumble.web.run_data import RunFolder

    view = RunFolder(outcome.folder)
    shapes = {"small": "EOTA111", "large": "EOTA221"}
    for k in kept["rocks"]:
        record = view.rock(k)
        assert record["path"] is not None
        assert record["shape"] == shapes[rows[k]["rock_class"]], k
    report = (tmp_path / "run" / "report.html").read_text()
    assert "Kept trajectories" in report and "stratified over (release area" in report


def test_a_new_line_replayed_gets_the_side_of_the_run_s_release(library_run, tmp_path):
    """The line x = 40 drawn the other way (from y = 19 to y = -19): the release now lies on its
    right, so the right is uphill and the replay counts what the run's own line counts. Given
    ``uphill = "left"`` instead, every crossing is upslope, no rock counts, and a warning says
    the release lies on the other side."""
    _, outcome = library_run
    reverse = {"name": "reverse", "line": LINE[::-1]}
    decided = replay_barriers(outcome.folder, [reverse], tmp_path / "decided", figures=False)
    [stats] = decided.barriers
    own = outcome.summary["barriers"][0]
    assert (stats["uphill"], stats["uphill_from"]) == ("right", "release")
    for key in ("rocks_crossing", "crossings_downslope", "crossings_upslope"):
        assert stats[key] == own[key], key
    given = replay_barriers(
        outcome.folder, [{**reverse, "uphill": "left"}], tmp_path / "given", figures=False
    )
    [stats] = given.barriers
    assert (stats["uphill"], stats["uphill_from"]) == ("left", "configuration")
    assert stats["rocks_crossing"] == 0
    assert stats["crossings_upslope"] == own["crossings_downslope"]
    assert any("uphill = 'left' is given, but only 0 %" in w for w in given.warnings)


def test_a_run_without_stored_sides_replays_with_the_kept_rocks_starts(library_run, tmp_path):
    """geometry.json of an earlier version (no footprint, no sides): the run's own line gets the
    side the kept rocks start on, the same as the run's, and a warning says so."""
    import shutil

    _, outcome = library_run
    copy = tmp_path / "copy"
    shutil.copytree(outcome.folder, copy)
    record = json.loads((copy / "geometry.json").read_text())
    del record["release"]["footprint"]
    for barrier in record["barriers"]:
        for key in ("uphill", "uphill_from", "release_share_uphill", "release_share_downslope"):
            del barrier[key]
    (copy / "geometry.json").write_text(json.dumps(record))
    replay = replay_barriers(copy, out=tmp_path / "replay", figures=False)
    [stats] = replay.barriers
    assert stats["uphill"] == "left"
    assert stats["rocks_crossing"] == outcome.summary["barriers"][0]["rocks_crossing"]
    assert any("the side the kept rocks start on" in w for w in replay.warnings)


def test_a_run_into_a_nodata_hole_tells_where_the_rocks_left(tmp_path):
    """A 30 degree slope in EPSG:2056 with a nodata hole below the release point: exits.gpkg
    holds one point per rock that left, in the DEM's CRS, with the fields of the issue, at the
    exit table's points; summary.json counts them per kind; the warning names the hole and
    where it is; the report has the table and draws the points."""
    import pyogrio.raw
    import shapely

    from tumble.rockfall import Terrain

    x = np.arange(0.0, 61.0)
    y = np.arange(-15.0, 16.0)
    heights = np.broadcast_to((60.0 - x) * np.tan(np.radians(30.0)), (y.size, x.size)).copy()
    heights[(np.abs(y[:, None]) <= 8) & (x[None, :] >= 30) & (x[None, :] <= 34)] = np.nan
    dem = Terrain.from_array(heights, x0=2_600_000.0, y0=1_200_000.0, dx=1.0, crs="EPSG:2056")
    dem.write(tmp_path / "dem.tif")
    settings = {"dem": str(tmp_path / "dem.tif"), "rocks": 3, "t_max": 8.0, "seed": 2}
    overrides = ["release.point=[2600015.0, 1200015.0]", "release.height=1.0"]
    overrides.append('soil.preset="lu2019"')  # no rolling resistance: the rocks reach the hole
    outcome = RockfallRun.from_config(settings=settings, overrides=overrides).run(tmp_path / "run")
    exits = outcome.summary["exits"]
    n = exits["rocks"]
    assert exits["counts"]["nodata_hole"] >= 1
    (hole,) = exits["holes"]
    assert (hole["x"], hole["y"]) == (2_600_032.0, 1_200_015.0)
    assert any("nodata hole 1" in w and "x = 2600032.0" in w for w in outcome.warnings)
    info = pyogrio.read_info(tmp_path / "run" / "exits.gpkg")
    assert info["features"] == n and info["crs"] == "EPSG:2056"
    assert info["geometry_type"] == "Point Z"
    fields = ["rock", "source", "rock_class", "kind", "hole", "kinetic_energy_kJ", "velocity_ms"]
    assert list(info["fields"]) == fields
    meta, _, geometry, columns = pyogrio.raw.read(tmp_path / "run" / "exits.gpkg")
    table = dict(zip(meta["fields"], columns, strict=True))
    kinds = list(table["kind"])
    assert {kind: kinds.count(kind) for kind in exits["counts"]} == exits["counts"]
    assert list(table["source"]) == ["release"] * n
    points = shapely.get_coordinates(shapely.from_wkb(geometry), include_z=True)
    assert not dem.contains(points[:, 0], points[:, 1]).any()
    page = (tmp_path / "run" / "report.html").read_text()
    assert "Where rocks left the DEM" in page and "into a nodata hole inside the footprint" in page
