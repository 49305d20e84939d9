"""rocks = "auto": the rounds stop at the first count whose judged products settled, at once when
nothing is judged, or at max_rocks, and the folder is that of a fixed run of the final count,
number for number."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import rasterio

from tumble.io.run_folder import RunPaths
from tumble.pipeline import RockfallRun
from tumble.rockfall.ensemble import RASTERS
from tumble.rockfall.site.from_config import build_run

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
    for key in ("max_rocks", "rounds", "products", "verdict", "measures"):
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
    """Judged on the per-cell intervals only: a target no cell meets runs every round up to
    max_rocks (400) and says so in a warning; a loose one stops after the first round (200).
    Either way the summary (but its timings and the rounds), deposits.csv and every raster
    equal those of the fixed run of that count."""
    settings = {
        "convergence.target": target,
        "convergence.min_probability": 0.5,
        "convergence.judge": ["cells"],
    }
    outcome = run(tmp_path / "auto", rocks="auto", **settings)
    record = outcome.summary["convergence"]
    assert [r["rocks"] for r in record["rounds"]] == rounds
    assert record["rocks"] == outcome.summary["n_rocks"] == rounds[-1]
    assert record["converged"] == (len(rounds) == 1)
    assert record["max_rocks"] == 400 and record["target"] == target
    warned = any("did not converge" in w for w in outcome.summary["warnings"])
    assert record["products"]["cells"]["round"] == (1 if len(rounds) == 1 else None)
    assert warned == (not record["converged"])
    fixed = run(tmp_path / "fixed", rocks=rounds[-1], **settings)
    outcome.summary["warnings"] = [w for w in outcome.summary["warnings"] if "converge" not in w]
    summary = json.loads((tmp_path / "auto" / "summary.json").read_text())
    summary["warnings"] = outcome.summary["warnings"]
    (tmp_path / "auto" / "summary.json").write_text(json.dumps(summary))
    same_folder(tmp_path / "auto", fixed.folder)


def test_nothing_to_judge_ends_the_run_at_its_first_round(tmp_path):
    """Rocks released along a 60 m line: no cell is reached by half of them, the run has no
    barrier and is not zoned. Nothing is judged: the run ends after its first round (200 of
    max_rocks = 400), does not report failure, and the verdict says that nothing was there."""
    settings = {
        "release.line": [[10.0, -30.0], [10.0, 30.0]],
        "convergence.min_probability": 0.5,
        "convergence.reach_line_probability": 0.5,
        "convergence.judge": ["reach_line", "zones", "design", "cells"],
    }
    outcome = run(tmp_path / "auto", rocks="auto", **settings)
    record = outcome.summary["convergence"]
    assert [r["rocks"] for r in record["rounds"]] == [200]
    assert record["converged"] is None and record["cells"] == 0
    assert record["verdict"].startswith("nothing to judge (reach_line: no cell has a reach ")
    assert "the run ended at round 1 (200 rocks)" in record["verdict"]
    assert not any("converge" in w for w in outcome.summary["warnings"])


BARRIER = [{"name": "fence", "line": [[30.0, -60.0], [30.0, 60.0]]}]


def test_auto_run_records_the_round_each_product_settled(tmp_path):
    """A release point above a barrier line: the reach line at p = 0.01 and the design values
    of the line settle within max_rocks = 1600 (thresholds of 0.1); summary.json names the round
    and the rocks at which each settled, the zones had nothing to judge (no zoning), and every
    measure of the rounds is the same with chunks of 50 rocks as with chunks of 100."""
    settings = {
        "convergence.max_rocks": 1600,
        "convergence.reach_line_moved": 0.1,
        "convergence.design_change": 0.1,
        "barrier": BARRIER,
    }
    outcome = run(tmp_path / "auto", rocks="auto", **settings)
    record = json.loads((tmp_path / "auto" / "summary.json").read_text())["convergence"]
    assert record["converged"] is True, record["verdict"]
    last = len(record["rounds"])
    assert outcome.summary["n_rocks"] == record["rounds"][-1]["rocks"] < 1600
    for name in ("reach_line", "design"):
        product = record["products"][name]
        assert product["judged"] and product["converged"]
        assert 2 <= product["round"] <= last
        assert product["rocks"] == record["rounds"][product["round"] - 1]["rocks"]
        assert product["last"] <= 0.1
        assert (
            f"{name} at round {product['round']} ({product['rocks']} rocks)" in (record["verdict"])
        )
    assert record["products"]["zone_boundaries"]["judged"] is False
    assert record["measures"][0]["reach_line"] is None  # no round before the first
    again = run(tmp_path / "chunks50", rocks="auto", **{**settings, "run.chunk_size": 50})
    assert again.summary["convergence"]["measures"] == record["measures"]


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


def test_each_round_is_built_once_and_its_chunks_carried_over(tmp_path, monkeypatch):
    """Two rounds (200 and 400 rocks): each round's ensemble is built once (the round before is
    not built again to fingerprint its chunks), the second round takes over the 2 chunks of the
    first, and the ensemble kept from a round that ran has the chunk fingerprints of one built
    anew."""
    import tumble.pipeline.auto as auto_module
    import tumble.pipeline.run as run_module

    built, taken = [], []
    carry_chunks = run_module.carry_chunks

    def counted_build(config, base_dir="."):
        built.append(config.rocks)
        return build_run(config, base_dir)

    def counted_carry(*args, **kwargs):
        taken.append(carry_chunks(*args, **kwargs))
        return taken[-1]

    for module in (run_module, auto_module):
        monkeypatch.setattr(module, "build_run", counted_build)
    monkeypatch.setattr(run_module, "carry_chunks", counted_carry)
    settings = {"convergence.target": 1e-3, "convergence.judge": ["cells"]}
    auto = RockfallRun.from_config(
        settings={**BASE, **settings, "rocks": "auto"}, overrides=OVERRIDES
    )
    auto.run(tmp_path / "auto", keep_chunks=True)
    assert built == [200, 400] and taken == [0, 2]
    monkeypatch.undo()
    kept, anew = auto.setup.ensemble, build_run(auto.config).ensemble
    chunks = list(kept.chunks(100))
    assert [kept.chunk_fingerprint(a, b) for a, b in chunks] == [
        anew.chunk_fingerprint(a, b) for a, b in chunks
    ]
