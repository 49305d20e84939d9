"""``tumble rockfall calibrate`` on the synthetic site of ``examples/calibration/make_site.py``:
60 blocks that came down on ``lu2019`` (``mu_min = 0.55``) with ``rolling_resistance = 0.3``."""

from __future__ import annotations

import json
import runpy
import tomllib
from pathlib import Path

import pytest

from tumble.cli.main import main
from tumble.pipeline.calibration.search import medoid
from tumble.pipeline.calibration.site import FreeField
from tumble.rockfall import Soil

MAKE_SITE = Path(__file__).parents[3] / "examples" / "calibration" / "make_site.py"
TRUTH = 0.3
#: the preset's mu_min, the second field the recovery test sets free
TRUE_MU_MIN = 0.55


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    write_site = runpy.run_path(str(MAKE_SITE))["write_site"]
    return write_site(tmp_path_factory.mktemp("site"), n=60, held_out=20, seed=1)


def calibrate(site: Path, out: Path, *extra: str, free=("rolling_resistance=0:0.8",)) -> int:
    return main(
        [
            "rockfall",
            "calibrate",
            "--config",
            str(site / "site.toml"),
            "--observations",
            str(site / "stops.csv"),
            *(f"--free={f}" for f in free),
            "--points",
            "12",
            "--orientations",
            "3",
            "--no-figures",
            "--out",
            str(out),
            *extra,
        ]
    )


def test_recovers_both_chosen_fields_within_the_equivalent_sets(site, tmp_path, capsys):
    out = tmp_path / "calib"
    free = ("rolling_resistance=0:0.8", "mu_min=0.3:0.9")
    held_out = ("--check", str(site / "held_out.csv"))
    assert calibrate(site, out, *held_out, "--threads", "2", "--points", "16", free=free) == 0
    result = tomllib.loads((out / "calibration.toml").read_text())
    assert result["sets"], "no equivalent set"
    for name, truth in (("rolling_resistance", TRUTH), ("mu_min", TRUE_MU_MIN)):
        span = [s[name] for s in result["sets"]]
        assert min(span) <= result["soil"][name] <= max(span)
        assert min(span) <= truth <= max(span), (name, span)
    assert abs(result["soil"]["rolling_resistance"] - TRUTH) < 0.1
    # the best set is one the data cannot reject: by default the medoid of the sets with
    # KS p >= 0.05 (there are some here), scored on the refined sets' rocks
    every = json.loads((out / "calibration.json").read_text())
    refined = [s for s in every["sets"] if s["stage"] == "refined"]
    best_entry = next(s for s in refined if s["set"] == every["best"])
    accepted = [s["set"] for s in every["sets"] if s["ks_pvalue"] >= 0.05]
    assert best_entry["ks_pvalue"] >= 0.05 and every["settings"]["select"] == "medoid"
    free_fields = [FreeField("rolling_resistance", 0.0, 0.8), FreeField("mu_min", 0.3, 0.9)]
    assert every["best"] == medoid(every["sets"], accepted, free_fields)
    # each refined set is also scored on its new orientations alone: two rounds of 60 x 3
    for s in refined:
        assert s["rocks"] == 3 * 60 * 3 and s["fresh"]["rocks"] == 2 * 60 * 3
        assert 0.0 <= s["fresh"]["ks_pvalue"] <= 1.0
    # every field named as tumble rockfall soils prints it, the others from the configuration
    assert result["soil"]["kappa"] == Soil.preset("lu2019").kappa
    # the held-out blocks: the best set passes the rule of the check
    checked = json.loads((out / "check.json").read_text())
    assert checked["best_passes"], checked["best"]
    # the report shows the check, and the stored run-outs give its KS p-value again
    page = (out / "report.html").read_text()
    assert "Held-out check" in page and f"The best set {every['best']} passes" in page
    from tumble.validation.authume.metrics import kolmogorov_smirnov

    _, p = kolmogorov_smirnov(checked["observed_runouts_m"], checked["best_runouts_m"])
    assert p == pytest.approx(checked["best"]["ks_pvalue"], rel=1e-12)
    assert all(r["passes"] == (not r["failed"]) for r in checked["sets"])
    assert "held out (20 blocks)" in capsys.readouterr().out
    # a run takes the best set from the file
    best = result["soil"]["rolling_resistance"]
    assert Soil.from_calibration(out / "calibration.toml").rolling_resistance == best


def test_same_seed_same_file_for_one_and_two_threads(site, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert calibrate(site, one, "--threads", "1", "--points", "3") == 0
    assert calibrate(site, two, "--threads", "2", "--points", "3") == 0
    a = json.loads((one / "calibration.json").read_text())
    b = json.loads((two / "calibration.json").read_text())
    assert a["sets"] == b["sets"]
    assert (one / "calibration.toml").read_text() == (two / "calibration.toml").read_text()


def test_a_dask_cluster_gives_the_local_numbers(site, tmp_path, capsys):
    """--dask local:2: every set a task on one of two single-threaded worker processes; the
    evaluated sets (a zoom round's too), the files and the held-out check equal those of a local
    run; a check that fails names the criteria it fails."""
    local, remote = tmp_path / "local", tmp_path / "dask"
    held_out = ("--check", str(site / "held_out.csv"), "--points", "3", "--zoom", "1")
    assert calibrate(site, local, *held_out, "--threads", "2") == 0
    assert calibrate(site, remote, *held_out, "--dask", "local:2") == 0
    a = json.loads((local / "calibration.json").read_text())
    b = json.loads((remote / "calibration.json").read_text())
    assert a["sets"] == b["sets"]
    assert (local / "calibration.toml").read_text() == (remote / "calibration.toml").read_text()
    check_a = json.loads((local / "check.json").read_text())
    check_b = json.loads((remote / "check.json").read_text())
    assert check_a["sets"] == check_b["sets"]
    assert check_a["failed"] == check_b["failed"]
    assert check_a["best_passes"] == (check_a["failed"] == [])
    printed = capsys.readouterr().out
    if check_a["failed"]:
        assert f"(fails: {', '.join(check_a['failed'])}; the rule:" in printed


def test_a_run_takes_the_best_set_of_soil_calibration(site, tmp_path):
    from tumble.io.config import load_config
    from tumble.rockfall.site.from_config import build_run

    best = {**dict.fromkeys(("drag", "restitution"), 0.0), "mu_min": 0.4, "mu_max": 1.5}
    best.update(kappa=2.0, beta=100.0, rolling_resistance=0.25)
    lines = ["[soil]", *(f"{k} = {v}" for k, v in best.items()), "[[sets]]", "mu_min = 0.5"]
    (tmp_path / "calibration.toml").write_text("\n".join(lines) + "\n")
    (tmp_path / "run.toml").write_text(
        f'dem = "{site / "slope.asc"}"\nrocks = 1\n[release]\npoint = [5.0, 0.0]\n'
        '[soil]\ncalibration = "calibration.toml"\nrestitution = 0.2\n'
    )
    soil = build_run(load_config(tmp_path / "run.toml")).ensemble.soil
    assert soil.rolling_resistance == 0.25
    assert soil.mu_min == 0.4
    assert soil.restitution == 0.2  # a field given over the calibration


def test_a_zoom_round_draws_half_the_points_in_half_the_range_around_a_design_set(site, tmp_path):
    """--zoom 1 adds half the design's points (2 of 4), drawn in a box of half the free range
    (0.4 of 0.8) around the best set of the design (:func:`zoom_design`'s box, shifted into the
    range); the file names where each set was drawn."""
    out = tmp_path / "zoomed"
    rule = ("--select", "objective")
    assert calibrate(site, out, "--points", "4", "--zoom", "1", "--threads", "2", *rule) == 0
    b = json.loads((out / "calibration.json").read_text())
    design = [s for s in b["sets"] if s["drawn"] == "design"]
    zoom = [s["values"]["rolling_resistance"] for s in b["sets"] if s["drawn"] == "zoom 1"]
    assert len(design) == 4 and len(zoom) == 2 and b["settings"]["zoom"] == 1
    boxes = [min(max(s["values"]["rolling_resistance"] - 0.2, 0.0), 0.4) for s in design]
    assert any(low <= min(zoom) and max(zoom) <= low + 0.4 for low in boxes)
    report = (out / "report.html").read_text()
    assert "a Latin hypercube of 4 sets and 1 round narrowing it around the best set" in report
    assert "the least objective among the refined sets the observations do not reject" in report
    # --select objective: the least objective among the refined sets the data do not reject,
    # or among all refined sets when they reject every one
    refined = [s for s in b["sets"] if s["stage"] == "refined"]
    kept = [s for s in refined if s["ks_pvalue"] >= 0.05] or refined
    assert b["sets"][b["best"]]["objective"] == min(s["objective"] for s in kept)


def test_select_medoid_takes_the_centre_of_the_equivalent_sets(site, tmp_path, capsys):
    """The default rule (``--select medoid``): with one free field the medoid of the
    equivalent sets (least summed distance) is a median of their values; it is run on the
    refined sets' rocks too (3 rounds of 60 blocks x 3 orientations) and stays a set the
    observations do not reject. Over this
    range (the truth 0.3 +- about the width the blocks accept) the medoid of the first round
    is a design set, which is then refined beside the two of least objective."""
    out = tmp_path / "medoid"
    narrow = ("rolling_resistance=0.28:0.34",)
    assert calibrate(site, out, "--points", "8", "--select", "medoid", free=narrow) == 0
    every = json.loads((out / "calibration.json").read_text())
    assert every["settings"]["select"] == "medoid"
    accepted = [s for s in every["sets"] if s["ks_pvalue"] >= 0.05]
    assert len(accepted) >= 3, "too few equivalent sets to tell a centre"
    best = every["sets"][every["best"]]
    assert best["ks_pvalue"] >= 0.05
    assert best["stage"] == "refined" and best["rocks"] == 3 * 60 * 3
    values = sorted(s["values"]["rolling_resistance"] for s in accepted)
    n = len(values)
    lower, upper = values[(n - 1) // 2], values[n // 2]
    assert lower <= best["values"]["rolling_resistance"] <= upper
    free = [FreeField("rolling_resistance", 0.28, 0.34)]
    assert every["best"] == medoid(every["sets"], [s["set"] for s in accepted], free)
    refined = [s["set"] for s in every["sets"] if s["stage"] == "refined"]
    assert len(refined) == 3 and every["best"] in refined
    result = tomllib.loads((out / "calibration.toml").read_text())
    assert result["select"] == "medoid"
    assert result["soil"]["rolling_resistance"] == best["values"]["rolling_resistance"]
    assert "(the medoid of the equivalent sets)" in capsys.readouterr().out
    assert "the best set is the medoid of the sets" in (out / "report.html").read_text()
