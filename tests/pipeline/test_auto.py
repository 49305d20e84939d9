"""rocks = "auto": the rounds stop at the first count whose maps converged, or at max_rocks, and
the folder is that of a fixed run of the final count, number for number."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import rasterio

from tumble.io.run_folder import RunPaths
from tumble.pipeline import RockfallRun
from tumble.rockfall.ensemble import RASTERS

BASE = {"t_max": 4.0, "seed": 5, "convergence.max_rocks": 400, "run.chunk_size": 100}
OVERRIDES = ["output.figures=false", "output.trajectories=2"]
TIMING = {"wall_time_s", "rock_steps_per_s", "sessions"}


def run(out, **settings):
    return RockfallRun.from_config(settings={**BASE, **settings}, overrides=OVERRIDES).run(out)


def same_folder(auto, fixed):
    a, b = (RunPaths(p) for p in (auto, fixed))
    sa, sb = (p.read_json(p.summary) for p in (a, b))
    conv = sa.pop("convergence")
    fixed_conv = sb.pop("convergence")
    for key in ("max_rocks", "rounds"):
        conv.pop(key)
    assert conv == fixed_conv
    assert {k: v for k, v in sa.items() if k not in TIMING} == {
        k: v for k, v in sb.items() if k not in TIMING
    }
    assert list(csv.reader(a.deposits.open())) == list(csv.reader(b.deposits.open()))
    for name in (*RASTERS, "converged", "source_count"):
        with rasterio.open(a.raster(name)) as x, rasterio.open(b.raster(name)) as y:
            assert np.array_equal(x.read(), y.read(), equal_nan=True), name


@pytest.mark.parametrize(
    ("target", "rounds"),
    [(1e-3, [200, 400]), (0.95, [200])],
    ids=["max_rocks_reached", "converged_in_the_first_round"],
)
def test_auto_run_equals_the_fixed_run_of_its_final_count(tmp_path, target, rounds):
    """A target no cell meets runs every round up to max_rocks (400) and says so in a warning;
    a loose one stops after the first round (200). Either way the summary (but its timings and
    the rounds), deposits.csv and every raster equal those of the fixed run of that count."""
    settings = {"convergence.target": target, "convergence.min_probability": 0.5}
    outcome = run(tmp_path / "auto", rocks="auto", **settings)
    record = outcome.summary["convergence"]
    assert [r["rocks"] for r in record["rounds"]] == rounds
    assert record["rocks"] == outcome.summary["n_rocks"] == rounds[-1]
    assert record["converged"] == (len(rounds) == 1)
    assert record["max_rocks"] == 400 and record["target"] == target
    warned = any("did not converge" in w for w in outcome.summary["warnings"])
    assert warned == (not record["converged"])
    fixed = run(tmp_path / "fixed", rocks=rounds[-1], **settings)
    outcome.summary["warnings"] = [w for w in outcome.summary["warnings"] if "converge" not in w]
    summary = json.loads((tmp_path / "auto" / "summary.json").read_text())
    summary["warnings"] = outcome.summary["warnings"]
    (tmp_path / "auto" / "summary.json").write_text(json.dumps(summary))
    same_folder(tmp_path / "auto", fixed.folder)


def test_converged_map_follows_the_intervals(tmp_path):
    """converged.tif is 1 exactly where p >= min_probability and both relative half-widths are
    within the target, recomputed from the interval rasters of the folder."""
    out = tmp_path / "run"
    run(out, rocks=200, **{"convergence.target": 0.5, "convergence.min_probability": 0.2})
    paths = RunPaths(out)

    def read(name):
        with rasterio.open(paths.raster(name)) as src:
            return src.read(1, masked=True).astype(np.float64).filled(np.nan)

    p, e = read("reach_probability"), read("kinetic_energy_p95")
    with np.errstate(invalid="ignore", divide="ignore"):
        reach = (
            np.maximum(p - read("reach_probability_low"), read("reach_probability_high") - p) / p
        )
        energy = (
            np.maximum(e - read("kinetic_energy_p95_low"), read("kinetic_energy_p95_high") - e) / e
        )
    # float32 files: the ratio recomputed from them agrees but at the boundary
    expected = (p >= 0.2) & (reach <= 0.5) & (energy <= 0.5)
    got = read("converged") == 1
    near = (np.abs(reach - 0.5) < 1e-5) | (np.abs(energy - 0.5) < 1e-5) | (np.abs(p - 0.2) < 1e-6)
    assert np.array_equal(got[~near], expected[~near])
    record = paths.read_json(paths.summary)["convergence"]
    assert record["cells_converged"] == int(got.sum()) and record["cells"] == int((p >= 0.2).sum())
