"""The energy-line record of a run against its deposits and its raster: the reach beyond the
release (rocks at rest and cells farther than 25 m from every release place), the warning when
rocks come to rest below the lowest reach angle field records show (Evans & Hungr 1993: 27.5
degrees) on real terrain, and what a built-in synthetic terrain reproduces instead."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow.csv as pacsv
import pytest

from tumble.io.dem import read_raster
from tumble.pipeline import RockfallRun
from tumble.rockfall import Terrain
from tumble.rockfall.hazard.energy_line import BEYOND_RELEASE_M, LOWEST_OBSERVED_DEG, RULE


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
    # farther than 25 m from the release point (2, 0)
    far = np.hypot(np.array(table["x"]) - 2.0, np.array(table["y"])) > BEYOND_RELEASE_M
    at_rest = angle[(np.array(table["status"]) == "stopped") & far]
    below = int(np.sum(at_rest < LOWEST_OBSERVED_DEG))
    assert record["rocks_at_rest"] == at_rest.size > 0
    assert record["rocks_at_rest_below_lowest_observed"] == below > 0
    for q in (1, 5, 50):
        expected = np.percentile(at_rest, q)
        assert record["deposit_angle_percentiles_deg"][f"p{q}"] == expected
    assert record["min_deposit_angle_deg"] == at_rest.min()
    [warning] = [w for w in outcome.warnings if "energy-line angle of 27.5" in w]
    assert (
        f"{below} of the {at_rest.size} rocks at rest farther than 25 m from every release place"
        in warning
    )
    assert record["field_comparison"] is True and "reproduction" not in record
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
        far = np.hypot(np.array(table["x"]) - 10.0, np.array(table["y"])) > BEYOND_RELEASE_M
        assert outcome.summary["energy_line"]["rocks_at_rest"] == int(np.sum(stopped & far))
        assert outcome.summary["energy_line"]["rocks_at_rest_near_release"] >= near
        warned = [w for w in outcome.warnings if "within 2 m of their release point" in w]
        assert len(warned) == (1 if near > 0 else 0)
        records[name] = record
    assert records["box"]["rocks"] >= 10  # most boxes are held
    assert records["eota111"]["rocks"] == 0  # the compact blocks tumble away


def _plateau_above_a_cliff(path):
    """A plateau falling 3 degrees from x = 0 to 15 m and 15 degrees to x = 30 m, a 45 degree
    cliff 30 m high to x = 60 m and flat ground to x = 130 m, 41 m wide, 1 m grid."""
    x = np.arange(131.0)
    edge = 30.0 + 15.0 * math.tan(math.radians(15.0))
    z = np.where(
        x < 15.0,
        edge + (15.0 - x) * math.tan(math.radians(3.0)),
        np.where(
            x < 30.0, 30.0 + (30.0 - x) * math.tan(math.radians(15.0)), np.maximum(60.0 - x, 0.0)
        ),
    )
    Terrain.from_array(np.broadcast_to(z, (41, x.size)), y0=-20.0, dx=1.0).write(path)


def test_the_record_keeps_the_reach_beyond_the_release_and_names_its_rule(tmp_path):
    """A release polygon (x 2-29 m, y -6-6 m) on the plateau of :func:`_plateau_above_a_cliff`,
    24 EOTA111 blocks of 270 kg with 1 m/s, default soil, seed 1: the blocks released on the 3
    degree part are held within a few metres of their release (angles of 2-12 degrees, some
    reached cells beside the release lower still), those near the edge go down the cliff. The
    record keeps the rocks at rest and the cells farther than 25 m from the polygon
    (recomputed from deposits.csv and energy_line_angle.tif with the distance to the
    rectangle), names its rule and counts what it left out; the raster keeps every cell, and
    its smallest angle, beside the release, is not the record's (on main it was); the warning
    and the report say the rule."""
    _plateau_above_a_cliff(tmp_path / "d.tif")
    settings = {"dem": str(tmp_path / "d.tif"), "rocks": 24, "t_max": 40.0, "seed": 1}
    overrides = [
        "release.polygon=[[2.0, -6.0], [29.0, -6.0], [29.0, 6.0], [2.0, 6.0]]",
        "release.speed_downslope=1.0",
        "release.height=0.5",
        'rock.shape="eota111"',
        "rock.mass=270.0",
    ]
    outcome = RockfallRun.from_config(settings=settings, overrides=overrides).run(tmp_path / "r")
    record = outcome.summary["energy_line"]

    def beyond(x, y):
        """Farther than 25 m from the rectangle of the release polygon."""
        dx = np.maximum.reduce([2.0 - x, np.zeros_like(x), x - 29.0])
        dy = np.maximum.reduce([-6.0 - y, np.zeros_like(y), y - 6.0])
        return np.hypot(dx, dy) > BEYOND_RELEASE_M

    table = pacsv.read_csv(tmp_path / "r" / "deposits.csv").to_pydict()
    x, y = np.array(table["x"], dtype=float), np.array(table["y"], dtype=float)
    angle = np.array(table["energy_line_angle_deg"], dtype=float)
    stopped = np.array(table["status"]) == "stopped"
    far = beyond(x, y)
    assert record["rule"] == RULE and "farther than 25 m" in RULE and "every cell" in RULE
    assert record["rocks_at_rest"] == int(np.sum(stopped & far)) > 0
    # the rocks held at their release are left out
    assert record["rocks_at_rest_near_release"] == int(np.sum(stopped & ~far)) >= 8
    assert np.all(angle[stopped & ~far] < 15.0)
    assert record["min_deposit_angle_deg"] == angle[stopped & far].min()
    assert record["deposit_angle_percentiles_deg"]["p50"] == np.percentile(angle[stopped & far], 50)
    # the cells: the raster keeps every one, the record those beyond the release
    grid = read_raster(tmp_path / "r" / "rasters" / "energy_line_angle.tif")
    values = np.asarray(grid.values, dtype=float)
    gx, gy = np.meshgrid(
        grid.x0 + grid.dx * np.arange(values.shape[1]),
        grid.y0 + grid.dy * np.arange(values.shape[0]),
    )
    reached, cells = np.isfinite(values), np.isfinite(values) & beyond(gx, gy)
    assert record["cells"] == int(cells.sum()) > 0
    assert record["cells_near_release"] == int(np.sum(reached & ~cells)) > 0
    assert record["min_angle_deg"] == pytest.approx(values[cells].min(), rel=1e-6)
    assert np.nanmin(values) < record["min_angle_deg"] - 5.0
    below = int(np.sum(angle[stopped & far] < LOWEST_OBSERVED_DEG))
    warned = [w for w in outcome.warnings if "energy-line angle of 27.5" in w]
    assert len(warned) == (1 if below else 0)
    if below:
        assert (
            f"{below} of the {record['rocks_at_rest']} rocks at rest farther than 25 m" in warned[0]
        )
    report = (tmp_path / "r" / "report.html").read_text()
    assert "The angles below are over the rocks at rest and cells farther than 25 m" in report


def test_a_run_on_the_reproduced_slope_says_what_it_reproduces_and_gives_no_field_warning(
    tmp_path,
):
    """slope40 with its own soil (lu2019): the rocks roll far out on the flat, below 27.5
    degrees; the record counts them, says what slope40 reproduces and why its reach differs
    from field slopes, the report says so in its energy-line section, and the run gives no
    field-reach warning."""
    settings = {"scenario": "slope40", "rocks": 10, "seed": 1}
    outcome = RockfallRun.from_config(settings=settings, overrides=["output.figures=false"]).run(
        tmp_path / "r"
    )
    record = outcome.summary["energy_line"]
    assert record["rocks_at_rest_below_lowest_observed"] > 0
    assert record["field_comparison"] is False
    assert record["reproduction"].startswith("slope40 reproduces the ensembles of Leine et al.")
    assert "belong to runs on real terrain" in record["reproduction"]
    assert not any("energy-line angle of 27.5" in w for w in outcome.warnings)
    report = (tmp_path / "r" / "report.html").read_text()
    assert "<p class='note'>slope40 reproduces the ensembles of Leine et al. 2021" in report
    assert "beyond the geometric method's reach" not in report
