"""Validation against the Authume field tests: the calibration (its grid, refinement,
equivalent sets and stored tables, each stage reading only its profile)."""

import dataclasses
import inspect
import json
import math

import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from tumble.cli.main import main
from tumble.rockfall.soil import FIELDS, Soil
from tumble.validation import authume as A
from tumble.validation.authume import data as field_data

# --- calibration ------------------------------------------------------------------------------


def test_equivalent_points_are_the_flagged_rows_best_first():
    sets = [A.SoilParameters(d, 0.3, 3.5, 1.5, mu) for d in (700.0, 900.0) for mu in (0.1, 0.2)]
    flags = [False, True, True, False]
    rows = [p.as_dict() | {"equivalent": f} for p, f in zip(sets, flags, strict=True)]
    result = A.Calibration(rows, sets[2], "implicit", 256, (0, 1, 2), 1.0)
    assert result.equivalent == (sets[2], sets[1])


def test_calibration_selection_requires_p1_ks_test():
    """Hand-built table: the best is the smallest objective among the rows whose geometric mean
    KS p-value on P1 is at least 0.05; the equivalent rows lie within the best's standard error
    and pass that test as well."""
    table = [  # objective, its standard error, geometric mean KS p-value over the seeds
        (3.00, 0.50, 0.01),  # smallest objective, rejected by P1's KS test
        (3.40, 0.20, 0.20),  # the best among those that pass; limit 3.40 + 0.20 = 3.60
        (3.55, 0.10, 0.05),  # within, passes (p = level)
        (3.58, 0.10, 0.049),  # within, fails
        (3.70, 0.10, 0.50),  # passes, beyond the limit
    ]
    rows = [{"objective_m": o, "objective_se_m": se, "ks_pvalue_geomean": p} for o, se, p in table]
    assert A.select_calibration(rows) == 1
    assert [r["passes_ks"] for r in rows] == [False, True, True, False, True]
    assert [r["within_one_se"] for r in rows] == [True, True, True, True, False]
    assert [r["equivalent"] for r in rows] == [False, True, True, False, False]
    # no row passes: the smallest objective, alone
    rows = [{"objective_m": o, "objective_se_m": 0.5, "ks_pvalue_geomean": 0.01} for o in (2, 1)]
    assert A.select_calibration(rows) == 1
    assert [r["equivalent"] for r in rows] == [False, True]
    with pytest.raises(ValueError, match="level"):
        A.select_calibration(rows, level=1.5)


def test_scar_strength_puts_the_scar_layer_of_lu2019_on_the_soil_zone():
    """``scar_strength`` adds the layer with Lu et al.'s ``C_s`` (the category medium's) to the
    soil zone's row (Blue) only and changes nothing else; the walls and platforms (Gray) and
    the rocky slope (Red) carry none."""
    plain = dataclasses.replace(A.CALIBRATED, scar_strength=0.0).table()
    scarred = dataclasses.replace(A.CALIBRATED, scar_strength=30000.0).table()
    assert A.SCAR_CS == 1.5 == Soil.preset("medium").scar_cs
    assert A.SCAR_ZONES == ("blue",)
    for zone in A.ZONES:
        assert plain[zone]["scar_strength"] == 0.0 and plain[zone]["scar_cs"] == 0.0
        layer = (30000.0, 1.5) if zone == "blue" else (0.0, 0.0)
        assert (scarred[zone]["scar_strength"], scarred[zone]["scar_cs"]) == layer
        rest = set(FIELDS) - {"scar_strength", "scar_cs"}
        assert {k: scarred[zone][k] for k in rest} == {k: plain[zone][k] for k in rest}
    with pytest.raises(ValueError, match="scar_strength"):
        A.SoilParameters(scar_strength=-1.0)
    # the joint grid is the standard grid's axes with the soil strength added
    assert A.CALIBRATION_GRIDS == {
        "standard": (A.CALIBRATION_GRID,),
        "scar": (A.SCAR_CALIBRATION_GRID,),
        "all": (A.CALIBRATION_GRID, A.SCAR_CALIBRATION_GRID),
    }
    assert set(A.SCAR_CALIBRATION_GRID) == set(A.CALIBRATION_GRID) | {"scar_strength"}
    points = A.calibration_points(A.SCAR_CALIBRATION_GRID)
    assert len(points) == math.prod(len(v) for v in A.SCAR_CALIBRATION_GRID.values())
    assert {p.scar_strength for p in points} == set(A.SCAR_CALIBRATION_GRID["scar_strength"])


def test_stored_equivalent_sets_follow_from_the_stored_calibration_table():
    """CALIBRATED and CALIBRATION_EQUIVALENT are the rule of select_calibration applied to the
    stored calibration table (P1 only; the refinement's rows: the points of both grids within
    REFINE_SE_FACTOR standard errors of the best over seeds 0-2, run again over REFINE_SEEDS, in
    grid order, with their bootstrap shares), and the table's KS columns are those of its
    per-seed p-values."""
    rows = A.stored_calibration()
    grid = A.calibration_points(A.CALIBRATION_GRIDS["all"])
    # the first stage leaves the rocky zone's own mu_r unset (P1 does not cross the zone)
    names = [k for k in A.CALIBRATED_P1.as_dict() if k != "rocky_rolling_resistance"]
    assert A.CALIBRATED_P1.rocky_rolling_resistance is None
    points = [A.SoilParameters(**{k: r[k] for k in names}) for r in rows]
    assert sorted(grid.index(p) for p in points) == [grid.index(p) for p in points]
    for row in rows:
        pvalues = [row[f"ks_pvalue_seed{s}"] for s in A.REFINE_SEEDS]
        assert row["ks_pvalue_geomean"] == pytest.approx(
            math.exp(sum(math.log(p) for p in pvalues) / len(pvalues)), rel=1e-12
        )
        assert row["ks_pvalue_min"] == min(pvalues) and row["ks_pvalue_max"] == max(pvalues)
        assert 0.0 <= row["bootstrap_share"] <= 1.0
    stored = {k: [r[k] for r in rows] for k in ("passes_ks", "within_one_se", "equivalent")}
    best = A.select_calibration(rows)
    assert {k: [r[k] for r in rows] for k in stored} == stored
    assert points[best] == A.CALIBRATED_P1 == A.CALIBRATION_EQUIVALENT_P1[0]
    assert rows[best]["bootstrap_share"] == 1.0
    chosen = [p for p, r in zip(points, rows, strict=True) if r["equivalent"]]
    assert set(chosen) == set(A.CALIBRATION_EQUIVALENT_P1)
    # every equivalent point passes P1's KS test and scores at least as well as the best in at
    # least 5 % of the bootstrap resamples; the others fail one of the two
    for p, r in zip(points, rows, strict=True):
        assert r["equivalent"] == (
            p == A.CALIBRATED_P1 or (r["passes_ks"] and r["bootstrap_share"] >= 0.05)
        )


def test_the_rocky_zone_follows_from_its_stored_table():
    """The second stage's stored table (P2, REFINE_SEEDS, every value of ROCKY_CALIBRATION_GRID
    over the first stage's best): the rule of select_calibration gives CALIBRATED's rocky mu_r
    and ROCKY_EQUIVALENT, and CALIBRATION_EQUIVALENT is every first-stage set with every
    equivalent rocky value (two_stage_equivalent), the best of both first."""
    rows = A.stored_calibration(A.ROCKY_CALIBRATION_TABLE)
    assert [r["rocky_rolling_resistance"] for r in rows] == list(
        A.ROCKY_CALIBRATION_GRID["rocky_rolling_resistance"]
    )
    names = list(A.CALIBRATED.as_dict())
    points = [A.SoilParameters(**{k: r[k] for k in names}) for r in rows]
    assert all(
        dataclasses.replace(p, rocky_rolling_resistance=None) == A.CALIBRATED_P1 for p in points
    )
    for row in rows:
        pvalues = [row[f"ks_pvalue_seed{s}"] for s in A.REFINE_SEEDS]
        assert row["ks_pvalue_geomean"] == pytest.approx(
            math.exp(sum(math.log(p) for p in pvalues) / len(pvalues)), rel=1e-12
        )
    stored = [r["equivalent"] for r in rows]
    best = A.select_calibration(rows)
    assert [r["equivalent"] for r in rows] == stored
    assert points[best] == A.CALIBRATED
    chosen = [
        p.rocky_rolling_resistance for p, r in zip(points, rows, strict=True) if r["equivalent"]
    ]
    assert (
        sorted(chosen) == sorted(A.ROCKY_EQUIVALENT)
        and A.ROCKY_EQUIVALENT[0] == points[best].rocky_rolling_resistance
    )
    second = A.Calibration(rows, points[best], "implicit", 256, A.REFINE_SEEDS, 0.0)
    assert [p.rocky_rolling_resistance for p in second.equivalent] == list(A.ROCKY_EQUIVALENT)
    combined = A.two_stage_equivalent(A.CALIBRATION_EQUIVALENT_P1, second)
    assert combined == A.CALIBRATION_EQUIVALENT and combined[0] == A.CALIBRATED
    assert len(set(combined)) == len(A.CALIBRATION_EQUIVALENT_P1) * len(A.ROCKY_EQUIVALENT)


def test_p1_never_reaches_the_rocky_zone():
    """P1's blocks stop the same to the bit whatever the Red zone's mu_r (the first stage cannot
    inform it); P2's do not."""
    other = dataclasses.replace(A.CALIBRATED, rocky_rolling_resistance=0.6)
    for profile, same in (("p1", True), ("p2", False)):
        runs = [A.run_profile(profile, p, n=64, seed=0, workers=2) for p in (A.CALIBRATED, other)]
        assert np.array_equal(runs[0].stop, runs[1].stop) == same, profile


def _read_only(monkeypatch, allowed):
    """Make every reader of profile data refuse any profile but ``allowed``."""
    for name in ("measured_endpoints", "drop_points", "profile_geometry"):
        original = getattr(field_data, name)

        def guarded(profile, *args, _original=original, **kwargs):
            if field_data._profile(profile) != allowed:
                raise AssertionError(f"the calibration read {profile}")
            return _original(profile, *args, **kwargs)

        monkeypatch.setattr(field_data, name, guarded)
    field_data._geometry.cache_clear()


def test_the_rocky_stage_reads_only_p2_and_searches_only_the_rocky_zone(monkeypatch):
    """calibrate_rocky runs P2 alone, one row per value over the first stage's best, each the
    single-seed metrics averaged as the first stage's; other fields are refused."""
    _read_only(monkeypatch, "p2")
    grid = {"rocky_rolling_resistance": (0.1, 0.3)}
    result = A.calibrate_rocky(A.CALIBRATED_P1, grid, n=3, seeds=(0, 1), t_max=2.0, workers=2)
    assert [r["rocky_rolling_resistance"] for r in result.rows] == [0.1, 0.3]
    single = [
        A.profile_metrics(
            A.run_profile(
                "p2",
                dataclasses.replace(A.CALIBRATED_P1, rocky_rolling_resistance=0.3),
                n=3,
                seed=s,
                t_max=2.0,
            ),
            field_data.measured_endpoints("p2"),
        )
        for s in (0, 1)
    ]
    objective = np.mean([m["runout_wasserstein_m"] + m["lateral_wasserstein_m"] for m in single])
    assert result.rows[1]["objective_m"] == pytest.approx(objective, rel=1e-12)
    assert all(0.0 <= r["bootstrap_share"] <= 1.0 for r in result.rows)
    assert result.best.vegetation_drag == A.CALIBRATED_P1.vegetation_drag
    with pytest.raises(ValueError, match="searches only"):
        A.calibrate_rocky(A.CALIBRATED_P1, {"vegetation_drag": (1.0,)}, n=1, seeds=(0,))


def test_calibration_reads_only_p1(monkeypatch):
    """Every reader of profile data refuses P2 while the calibration runs."""
    assert "profile" not in inspect.signature(A.calibrate).parameters
    _read_only(monkeypatch, "p1")
    grid = {"vegetation_drag": (0.0, 300.0), "hard_friction": (1.0,), "drop_offset": (2.0,)}
    result = A.calibrate(grid, n=2, seeds=(0, 4), t_max=2.0, workers=2)
    assert [row["vegetation_drag"] for row in result.rows] == [0.0, 300.0]
    assert result.seeds == (0, 4)
    for row in result.rows:
        assert row["objective_m"] == pytest.approx(
            row["runout_wasserstein_m"] + row["lateral_wasserstein_m"], rel=1e-15
        )
        assert row["ks_pvalue_min"] <= row["ks_pvalue_max"]
    # each row is the mean over the seeds of the single-seed metrics
    parameters = A.SoilParameters(300.0, 1.0, 2.0)
    single = [
        A.profile_metrics(
            A.run_profile("p1", parameters, n=2, seed=s, t_max=2.0),
            field_data.measured_endpoints("p1"),
        )
        for s in (0, 4)
    ]
    runout = [m["runout_wasserstein_m"] for m in single]
    assert result.rows[1]["runout_wasserstein_m"] == pytest.approx(np.mean(runout), rel=1e-12)
    # the standard error of the objective over the two seeds: |o0 - o1| / 2
    objective = [m["runout_wasserstein_m"] + m["lateral_wasserstein_m"] for m in single]
    se = abs(objective[0] - objective[1]) / 2.0
    assert result.rows[1]["objective_se_m"] == pytest.approx(se, rel=1e-12, abs=1e-15)
    # each seed's KS p-value of P1's run-out, and their geometric mean
    for i, seed in enumerate((0, 4)):
        assert result.rows[1][f"ks_pvalue_seed{seed}"] == single[i]["ks_pvalue"]
    p0, p4 = (m["ks_pvalue"] for m in single)
    assert result.rows[1]["ks_pvalue_geomean"] == pytest.approx(math.sqrt(p0 * p4), rel=1e-12)
    # the best: the smallest objective among the rows passing P1's KS test (all if none does)
    passing = [r for r in result.rows if r["ks_pvalue_geomean"] >= A.KS_LEVEL] or result.rows
    best = min(passing, key=lambda row: row["objective_m"])
    assert result.best == A.SoilParameters(best["vegetation_drag"], best["hard_friction"], 2.0)
    # the points P1 cannot tell apart: the best first, then those within its standard error
    # that pass the KS test
    limit = best["objective_m"] + best["objective_se_m"]
    within = [row["objective_m"] <= limit for row in result.rows]
    assert [row["within_one_se"] for row in result.rows] == within
    assert result.equivalent[0] == result.best
    equivalent = [
        w and (r is best or r["ks_pvalue_geomean"] >= A.KS_LEVEL)
        for w, r in zip(within, result.rows, strict=True)
    ]
    assert len(result.equivalent) == sum(equivalent)
    with pytest.raises(ValueError, match="seeds"):
        A.calibrate(grid, n=2, seeds=(1, 1), t_max=2.0)
    with pytest.raises(ValueError, match="unknown calibration parameter"):
        A.calibration_points({"kappa": (1.0,)})


def test_the_refinement_reruns_the_screened_points():
    """``refine_seeds``: the grid's rows over ``seeds`` are kept as ``grid_rows``; the rows
    within REFINE_SE_FACTOR standard errors of their best (``screened``) are run again with
    ``refine_seeds``, each the calibration of that point alone over those seeds (bit for bit),
    and the best and the equivalent sets are chosen among them, with their bootstrap shares.
    Several grids are searched one after the other."""
    grids = (
        {"vegetation_drag": (0.0, 300.0), "hard_friction": (1.0,), "drop_offset": (2.0,)},
        {"vegetation_drag": (150.0,), "drop_offset": (2.0,), "scar_strength": (30000.0,)},
    )
    points = A.calibration_points(grids)
    assert [(p.vegetation_drag, p.scar_strength) for p in points] == [
        (0.0, 0.0),
        (300.0, 0.0),
        (150.0, 30000.0),
    ]
    result = A.calibrate(grids, n=2, seeds=(0, 1), t_max=2.0, workers=2, refine_seeds=(2, 3))
    assert result.grid_seeds == (0, 1) and result.seeds == (2, 3)
    assert len(result.grid_rows) == 3
    grid_rows = [dict(r) for r in result.grid_rows]
    screened = A.screen_for_refinement(grid_rows, A.select_calibration(grid_rows))
    assert [r["screened"] for r in result.grid_rows] == [r["screened"] for r in grid_rows]
    kept = [points[i] for i in screened]
    names = list(A.CALIBRATED.as_dict())
    assert [A.SoilParameters(**{k: r[k] for k in names}) for r in result.rows] == kept
    for point, row in zip(kept, result.rows, strict=True):
        alone = A.calibrate(
            {k: (v,) for k, v in point.as_dict().items() if v is not None},
            n=2,
            seeds=(2, 3),
            t_max=2.0,
            workers=2,
        ).rows[0]
        for key in ("objective_m", "objective_se_m", "ks_pvalue_seed2", "ks_pvalue_seed3"):
            assert row[key] == alone[key], key
    chosen = [dict(r) for r in result.rows]
    i_best = A.select_calibration(chosen)
    assert result.best == kept[i_best]
    assert chosen[i_best]["bootstrap_share"] == 1.0
    assert all(0.0 <= r["bootstrap_share"] <= 1.0 for r in chosen)


def test_bootstrap_shares_of_identical_and_distant_points():
    """A point whose simulated stops are the best's scores as well in every resample (share 1);
    one whose stops lie 100 m further scores worse in every resample (share 0); the shares do
    not depend on the order of the points and repeat for the same seed; the resampled objective
    of a point equals the objective on the measured blocks drawn with those multiplicities."""
    rng = np.random.default_rng(3)
    observed = np.column_stack([rng.normal(40.0, 5.0, 41), rng.normal(0.0, 2.0, 41)])
    near = [np.column_stack([rng.normal(40.0, 5.0, 64), rng.normal(0.0, 2.0, 64)]) for _ in "ab"]
    far = [s + np.array([100.0, 0.0]) for s in near]
    other = [np.column_stack([rng.normal(42.0, 5.0, 64), rng.normal(0.0, 2.0, 64)]) for _ in "ab"]
    shares = A.bootstrap_shares(observed, [near, near, far, other], 0, resamples=200)
    assert shares[0] == 1.0 and shares[1] == 1.0 and shares[2] == 0.0
    assert 0.0 <= shares[3] <= 1.0
    again = A.bootstrap_shares(observed, [other, far, near, near], 2, resamples=200)
    np.testing.assert_array_equal(again, shares[[3, 2, 1, 0]])
    # the weighted Wasserstein distance is that of the resampled measured values

    idx = np.random.default_rng(5).integers(0, 41, 41)
    w = np.bincount(idx, minlength=41)
    sim = other[0][:, 0]
    assert wasserstein_distance(observed[:, 0], sim, u_weights=w) == pytest.approx(
        wasserstein_distance(observed[idx, 0], sim), rel=1e-12
    )
    with pytest.raises(ValueError, match="i_best"):
        A.bootstrap_shares(observed, [near], 3)
    with pytest.raises(ValueError, match="observed"):
        A.bootstrap_shares(observed[:, 0], [near], 0)


def test_the_calibration_command_writes_the_grid_and_its_refinement(tmp_path):
    """``--calibrate --calibration-grid scar`` with a refinement: ``calibration_grid.csv`` holds
    every point of the joint grid over the calibration seeds, ``calibration.csv`` the points
    screened there (column ``screened``) over the refinement's seeds with their bootstrap
    shares, and the best of ``calibration.json`` is chosen among them by the rule."""
    out = tmp_path / "cal"
    code = main(
        [
            "validate",
            "authume",
            "--out",
            str(out),
            "--scheme",
            "implicit",
            "--rocks-per-profile",
            "2",
            "--t-max",
            "2",
            "--workers",
            "2",
            "--calibrate",
            "--calibration-grid",
            "scar",
            "--calibration-seeds",
            "0,1",
            "--calibration-refine-seeds",
            "2,3",
        ]
    )
    assert code == 0
    grid = A.stored_calibration(out / "calibration_grid.csv")
    refined = A.stored_calibration(out / "calibration.csv")
    assert len(grid) == len(A.calibration_points(A.SCAR_CALIBRATION_GRID))
    assert "ks_pvalue_seed1" in grid[0] and "ks_pvalue_seed3" in refined[0]
    names = list(A.CALIBRATED.as_dict())
    key = [n for n in names if n != "drop_offset"]
    screened = [tuple(r[k] for k in key) for r in grid if r["screened"]]
    assert [tuple(r[k] for k in key) for r in refined] == screened
    assert all(0.0 <= r["bootstrap_share"] <= 1.0 for r in refined)
    meta = json.loads((out / "calibration.json").read_text())
    assert meta["grid_seeds"] == [0, 1] and meta["refine_seeds"] == [2, 3]
    best = refined[A.select_calibration(refined)]
    assert all(meta["best"][k] == best[k] for k in key)
    assert (out / "calibration.png").stat().st_size > 0
    # the second stage: the rocky zone's mu_r on P2 over the refinement's seeds, from the first
    # stage's best; the run's soil is its best
    rocky = A.stored_calibration(out / "calibration_rocky.csv")
    assert [r["rocky_rolling_resistance"] for r in rocky] == list(
        A.ROCKY_CALIBRATION_GRID["rocky_rolling_resistance"]
    )
    assert all(r[k] == best[k] for r in rocky for k in key if k != "rocky_rolling_resistance")
    assert "ks_pvalue_seed3" in rocky[0] and "ks_pvalue_seed0" not in rocky[0]
    chosen = rocky[A.select_calibration(rocky)]
    assert meta["rocky_zone"]["profile"] == "p2" and meta["rocky_zone"]["seeds"] == [2, 3]
    assert (
        meta["rocky_zone"]["best"]["rocky_rolling_resistance"] == chosen["rocky_rolling_resistance"]
    )
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["soil_parameters"] == meta["rocky_zone"]["best"]
    assert metrics["p2"]["calibrates"] == A.PROFILE_ROLES["p2"]
    assert (out / "calibration_rocky.png").stat().st_size > 0
