"""An observation line between two sources (issue #51): a valley whose two flanks release rocks
towards a line along its floor. Each crossing is judged from the side its rock started on, so
the line counts the rocks of both sources downslope and its design values take both loads;
``barriers.json`` and the summary say which rule was used."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pyarrow.parquet as pq
import pytest

from tumble.io.run_folder import RunPaths
from tumble.io.vectors import write_polygons
from tumble.pipeline import RockfallRun
from tumble.pipeline.replay import replay_barriers
from tumble.rockfall import Terrain
from tumble.rockfall.barriers import point_sides
from tumble.rockfall.ensemble.crossings import directions_from_starts

CRS = "EPSG:2056"
X0, Y0 = 2_600_000.0, 1_200_000.0
#: the line along the valley floor x = 30 m, drawn towards +y: its left is the west flank
FLOOR = [[X0 + 30.0, Y0 + 0.5], [X0 + 30.0, Y0 + 29.5]]


@pytest.fixture(scope="module")
def valley(tmp_path_factory):
    """A V valley (35 degree flanks, floor at x = 30 m) with a west release area three times
    the size of the east one (74 % / 26 % of the release), a run of 16 rocks that keeps every
    trajectory, and the replay of its barriers."""
    root = tmp_path_factory.mktemp("valley")
    x = np.arange(61.0)
    z = np.abs(x - 30.0) * math.tan(math.radians(35.0))
    Terrain.from_array(np.broadcast_to(z, (31, 61)), x0=X0, y0=Y0, dx=1.0, crs=CRS).write(
        root / "dem.tif"
    )

    def box(x0, x1):
        return [
            np.array(
                [(X0 + x0, Y0 + 10), (X0 + x1, Y0 + 10), (X0 + x1, Y0 + 20), (X0 + x0, Y0 + 20)]
            )
        ]

    write_polygons(
        root / "areas.gpkg",
        [box(4.0, 10.0), box(52.0, 54.0)],
        {"name": np.array(["west", "east"], dtype=object)},
        crs=CRS,
    )
    settings = {
        "dem": str(root / "dem.tif"),
        "release.areas": str(root / "areas.gpkg"),
        "release.name_field": "name",
        "release.height": 1.0,
        "rocks": 16,
        "seed": 2,
        "t_max": 6.0,
        "barrier": [{"name": "floor", "line": FLOOR}],
    }
    overrides = ["output.figures=false", "output.trajectories=16", "output.trajectory_every=1"]
    run = RockfallRun.from_config(settings=settings, overrides=overrides)
    outcome = run.run(root / "run")
    replay = replay_barriers(root / "run", out=root / "replay")
    return outcome, replay, run


def test_a_line_between_two_sources_counts_both_from_their_own_side(valley):
    outcome, _, _ = valley
    paths = RunPaths(outcome.folder)
    table = pq.read_table(paths.crossings).to_pydict()
    with open(paths.path / "deposits.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    rocks = {
        "rock": [int(r["rock"]) for r in rows],
        "source": [r["source"] for r in rows],
        "release_x": [float(r["release_x"]) for r in rows],
        "release_y": [float(r["release_y"]) for r in rows],
    }
    source = dict(zip(rocks["rock"], rocks["source"], strict=True))
    starts = dict(
        zip(rocks["rock"], zip(rocks["release_x"], rocks["release_y"], strict=True), strict=True)
    )
    (line,) = outcome.summary["barriers"]
    assert line["uphill"] == "left" and line["direction_from"] == "start"
    assert line["release_share_downslope"] == pytest.approx(0.25, abs=0.03)
    # each rock's first crossing goes away from the side it started on: downslope
    first: dict[int, int] = {}
    for row, k in enumerate(table["rock"]):
        first.setdefault(k, row)
    sides = {k: point_sides(FLOOR, [starts[k]])[0] for k in first}
    assert {source[k] for k in first} == {"west", "east"}
    for k, row in first.items():
        assert table["direction"][row] == "downslope"
        assert sides[k] == (1.0 if source[k] == "west" else -1.0)
        assert table["x"][row] == pytest.approx(X0 + 30.0)
    # the design values take every rock that crossed, from both sources
    assert line["rocks_crossing"] == len(first)
    east = [k for k in first if source[k] == "east"]
    assert east and line["kinetic_energy_kJ"]["max"] == pytest.approx(
        max(table["kinetic_energy_kJ"][first[k]] for k in first)
    )
    # crossing back counts upslope: the rows alternate from each rock's first one
    for k in first:
        mine = [r for r, j in enumerate(table["rock"]) if j == k]
        expected = ["downslope", "upslope"] * len(mine)
        assert [table["direction"][r] for r in mine] == expected[: len(mine)]
    assert not any("protected side" in w for w in outcome.summary["warnings"])
    assert not outcome.summary["trajectories"].get("crossings_not_reproduced")


def test_the_replay_judges_the_runs_line_as_the_run_did(valley):
    """barriers.json of the replay: the same rocks crossing and the rule in words."""
    outcome, replay, _ = valley
    (ran,) = outcome.summary["barriers"]
    (replayed,) = replay.barriers
    assert replayed["direction_from"] == "start"
    assert "each from its own side" in replayed["direction_rule"]
    for key in ("rocks_crossing", "crossings_downslope", "crossings_upslope"):
        assert replayed[key] == ran[key]
    written = json.loads((replay.folder / "barriers.json").read_text())
    assert written["barriers"][0]["direction_from"] == "start"


def test_directions_from_starts_by_hand():
    """The line x = 0 towards +y, uphill left (x < 0). Rock 0 starts left and crosses to the
    right (downslope either way); rock 1 starts right, crosses left (the line's uphill rule:
    upslope; its own side: downslope), then back (upslope); rock 2 starts on the line and keeps
    the uphill rule; a line not chosen keeps every row."""
    from tumble.rockfall.barriers import Barrier

    line = Barrier("l", [[0.0, -10.0], [0.0, 10.0]], uphill="left")
    other = Barrier("m", [[5.0, -10.0], [5.0, 10.0]], uphill="left")
    crossings = {
        "rock": np.array([0, 1, 1, 2, 1]),
        "barrier": np.array(["l", "l", "l", "l", "m"]),
        "direction": np.array(["downslope", "upslope", "downslope", "upslope", "upslope"]),
        "t_s": np.arange(5.0),
    }
    starts = np.array([[-5.0, 0.0], [8.0, 0.0], [0.0, 3.0]])
    judged = directions_from_starts(crossings, [line, other], [True, False], starts)
    assert judged["direction"].tolist() == [
        "downslope",
        "downslope",
        "upslope",
        "upslope",
        "upslope",
    ]
    assert judged["t_s"] is crossings["t_s"]
