"""The energy-line record of a run against its deposits, and the warning when rocks come to rest
below the lowest reach angle field records show (Evans & Hungr 1993: 27.5 degrees)."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow.csv as pacsv

from tumble.pipeline import RockfallRun
from tumble.pipeline.auto import LOWEST_OBSERVED_DEG
from tumble.rockfall import Terrain


def test_rocks_at_rest_below_the_lowest_observed_angle_are_counted_and_flagged(tmp_path):
    """A 35 degree slope of 20 m above 70 m of flat ground, lu2019 soil (no rolling
    resistance): the rocks roll out on the flat, far below 27.5 degrees from their release.
    The record's percentiles and counts are recomputed from deposits.csv, the warning names
    the count, and the report shows the percentiles."""
    x = np.arange(91.0)
    z = np.maximum(20.0 - x, 0.0) * math.tan(math.radians(35.0))
    Terrain.from_array(np.broadcast_to(z, (41, 91)), y0=-20.0, dx=1.0).write(tmp_path / "d.tif")
    settings = {"dem": str(tmp_path / "d.tif"), "rocks": 12, "t_max": 30.0, "seed": 3}
    overrides = ["release.point=[2.0, 0.0]", 'soil.preset="lu2019"']
    outcome = RockfallRun.from_config(settings=settings, overrides=overrides).run(tmp_path / "r")
    record = outcome.summary["energy_line"]
    table = pacsv.read_csv(tmp_path / "r" / "deposits.csv").to_pydict()
    angle = np.array(table["energy_line_angle_deg"], dtype=float)
    started = np.array(table["runout_m"], dtype=float) >= 2.0
    at_rest = angle[(np.array(table["status"]) == "stopped") & started]
    below = int(np.sum(at_rest < LOWEST_OBSERVED_DEG))
    assert record["rocks_at_rest"] == at_rest.size > 0
    assert record["rocks_at_rest_below_lowest_observed"] == below > 0
    for q in (1, 5, 50):
        expected = np.percentile(at_rest, q)
        assert record["deposit_angle_percentiles_deg"][f"p{q}"] == expected
    assert record["min_deposit_angle_deg"] == at_rest.min()
    [warning] = [w for w in outcome.warnings if "energy-line angle of 27.5" in w]
    assert f"{below} of the {at_rest.size} rocks at rest beyond 2 m of their release" in warning
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["energy_line"] == record
    report = (tmp_path / "r" / "report.html").read_text()
    assert "the lowest reach field records show" in report and "Evans &amp; Hungr 1993" in report


def test_rocks_held_next_to_their_release_are_counted_and_flagged(tmp_path):
    """Flat boxes (0.4 x 0.3 x 0.2 m) released at rest just above a 40 degree plane slide
    instead of tumbling and the lu2019 soil holds them (mu_max 2 > tan 40 deg,
    docs/reach_and_start.md): the record counts the rocks at rest within 2 m of their release,
    recomputed from deposits.csv, and the run warns; the energy-line record leaves them out;
    EOTA111 blocks, which tumble, give no warning."""
    x = np.arange(61.0)
    z = (60.0 - x) * math.tan(math.radians(40.0))
    Terrain.from_array(np.broadcast_to(z, (41, 61)), y0=-20.0, dx=1.0).write(tmp_path / "d.tif")
    settings = {"dem": str(tmp_path / "d.tif"), "rocks": 20, "t_max": 8.0, "seed": 1}
    base = ["release.point=[10.0, 0.0]", "release.height=0.3", "release.speed_downslope=0.0"]
    base.append('soil.preset="lu2019"')
    rocks = {
        "box": ['rock.shape="box"', "rock.box=[0.4, 0.3, 0.2]", "rock.density=2700.0"],
        "eota111": ['rock.shape="eota111"', "rock.mass=270.0"],
    }
    records = {}
    for name, keys in rocks.items():
        out = tmp_path / name
        run = RockfallRun.from_config(settings=settings, overrides=[*base, *keys])
        outcome = run.run(out)
        record = outcome.summary["stopped_near_release"]
        table = pacsv.read_csv(out / "deposits.csv").to_pydict()
        stopped = np.array(table["status"]) == "stopped"
        near = int(np.sum(stopped & (np.array(table["runout_m"], dtype=float) < 2.0)))
        assert record == {"within_m": 2.0, "rocks": near, "share": near / 20}
        # the rocks held there have no reach: the energy-line record leaves them out
        assert outcome.summary["energy_line"]["rocks_at_rest"] == int(stopped.sum()) - near
        warned = [w for w in outcome.warnings if "within 2 m of their release point" in w]
        assert len(warned) == (1 if near > 0 else 0)
        records[name] = record
    assert records["box"]["rocks"] >= 10  # most boxes are held
    assert records["eota111"]["rocks"] == 0  # the compact blocks tumble away
