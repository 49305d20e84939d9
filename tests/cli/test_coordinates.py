"""Coordinates west or south of a grid's origin on the command line: ``--release -8300,194900``
and ``--line -8350,194880 -8350,194920`` are values, not unknown options (Austrian GK and
local grids have negative eastings)."""

import json
import math

import numpy as np
import pytest

from tumble.cli.common import NEGATIVE_NUMBERS
from tumble.cli.main import build_parser, main
from tumble.rockfall import Terrain

X0, Y0 = -8400.0, 194850.0


@pytest.fixture(scope="module")
def dem(tmp_path_factory):
    """A 35 degree slope descending along +x in MGI / Austria GK West, eastings negative."""
    x = np.arange(121.0)
    z = np.maximum(80.0 - x, 0.0) * math.tan(math.radians(35.0))
    terrain = Terrain.from_array(
        np.broadcast_to(z, (101, 121)), x0=X0, y0=Y0, dx=1.0, crs="EPSG:31254"
    )
    path = tmp_path_factory.mktemp("dem") / "gk.tif"
    terrain.write(path)
    return path


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("-8300,194900", True),
        ("-8300", True),
        ("-8.3e3,-1.949e5", True),
        ("-0.5,2", True),
        ("-1e-3", True),
        ("--release", False),
        ("-h", False),
        ("-8300,abc", False),
    ],
)
def test_negative_numbers_are_values(text, matches):
    assert bool(NEGATIVE_NUMBERS.match(text)) is matches


def test_every_coordinate_option_takes_negative_numbers():
    parser = build_parser()
    run = parser.parse_args(["rockfall", "run", "--release", "-8300,194900", "--box", "1,1,1"])
    assert run.release == (-8300.0, 194900.0)
    replay = parser.parse_args(
        ["rockfall", "barriers", "RUN", "--line", "-8350,194880", "-8350.5,-1e2"]
    )
    assert replay.line == [[(-8350.0, 194880.0), (-8350.5, -100.0)]]
    spin = parser.parse_args(["spin", "--omega0", "-1,0.5,-2"])
    assert spin.omega0 == (-1.0, 0.5, -2.0)


def test_a_run_and_a_barrier_replay_at_negative_eastings(dem, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(
        [
            "rockfall",
            "run",
            "--dem",
            str(dem),
            "--release",
            "-8390,194900",
            "--rocks",
            "3",
            "--t-max",
            "8",
            "--no-figures",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    resolved = json.loads((out / "provenance.json").read_text())["config"]["resolved"]
    assert resolved["release"]["point"] == [-8390.0, 194900.0]
    code = main(
        [
            "rockfall",
            "barriers",
            str(out),
            "--line",
            "-8350,194880",
            "-8350,194920",
            "--no-figures",
        ]
    )
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / "barriers" / "barriers.json").read_text())
    assert report["barriers"][0]["name"] == "line_1"
