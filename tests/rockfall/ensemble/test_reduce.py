"""Reductions of an ensemble (tumble.rockfall.ensemble.reduce) against numpy and hand-made cases:
the merge of per-rock path statistics (Chan et al. 1983), run-out and lateral offsets, and honest
summaries: percentages that never round to 0 % or 100 %, distribution-free intervals of
percentiles that cover at their stated level, and warnings that say what is censored."""

import math
import re

import numpy as np
import pytest

from tumble.rockfall.ensemble.censoring import censoring_warnings, format_percent
from tumble.rockfall.ensemble.end_of_run import summary_line
from tumble.rockfall.ensemble.record import W_COUNT, W_M2, W_MEAN
from tumble.rockfall.ensemble.reduce import combine_path, quantile_ci, runout_and_lateral

# --- combine_path: Chan's merge of (count, mean, M2) ------------------------------------------


def welford_row(samples):
    """The per-rock accumulator (count, mean, sum of squared deviations) of the samples, in the
    W_* column layout; zeros for no samples (as the kernel initialises it)."""
    row = np.zeros(3)
    if len(samples):
        row[W_COUNT] = len(samples)
        row[W_MEAN] = np.mean(samples)
        row[W_M2] = np.sum((samples - np.mean(samples)) ** 2)
    return row


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_combine_path_equals_the_pooled_samples(seed):
    """Groups of 0 to 40 samples with different means and spreads (one empty group forced):
    the merged mean and population std equal numpy's over all samples pooled (rel. 1e-12),
    and the count is the total."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 41, size=12)
    sizes[3] = 0
    groups = [rng.normal(rng.uniform(-50, 50), rng.uniform(0.1, 20), size=k) for k in sizes]
    path = np.array([welford_row(g) for g in groups])
    pooled = np.concatenate(groups)
    mean, std, count = combine_path(path)
    assert count == pooled.size
    assert mean == pytest.approx(np.mean(pooled), rel=1e-12)
    assert std == pytest.approx(np.std(pooled), rel=1e-12)


def test_combine_path_by_hand():
    """Groups {1, 3} (n 2, mean 2, M2 2) and {6} (n 1, mean 6, M2 0); pooled {1, 3, 6} has the
    mean 10/3. Chan: M2 = 2 + 0 + 2 (2 - 10/3)^2 + 1 (6 - 10/3)^2 = 2 + 32/9 + 64/9 = 38/3,
    the same as the direct sum (49 + 1 + 64)/9 = 38/3, so std = sqrt(M2 / 3) = sqrt(38)/3.
    A third, empty group changes nothing. Tolerance 1e-15."""
    path = np.zeros((3, 3))
    path[0, [W_COUNT, W_MEAN, W_M2]] = 2.0, 2.0, 2.0
    path[1, [W_COUNT, W_MEAN, W_M2]] = 1.0, 6.0, 0.0
    mean, std, count = combine_path(path)
    assert count == 3
    assert mean == pytest.approx(10.0 / 3.0, abs=1e-15)
    assert std == pytest.approx(math.sqrt(38.0) / 3.0, abs=1e-15)
    assert std == pytest.approx(np.std([1.0, 3.0, 6.0]), abs=1e-15)


def test_combine_path_without_samples_is_nan():
    mean, std, count = combine_path(np.zeros((4, 3)))
    assert count == 0
    assert math.isnan(mean) and math.isnan(std)


# --- run-out and lateral offset ---------------------------------------------------------------


def test_runout_and_lateral_along_x():
    """Releases at (100, 50, z), moves (10, 2), (10, -2), (5, 0) (the z column is ignored):
    the unit vectors (10, +-2)/sqrt(104) and (1, 0) average to a direction along +x, so the
    lateral offsets are +2 (left of +x is +y), -2 and 0; run-outs sqrt(104), sqrt(104), 5 (the
    horizontal distance, although z drops by 40 m). Tolerance 1e-12."""
    release = np.array([[100.0, 50.0, 60.0]] * 3)
    final = release + np.array([[10.0, 2.0, -40.0], [10.0, -2.0, -40.0], [5.0, 0.0, -40.0]])
    runout, lateral = runout_and_lateral(release, final)
    np.testing.assert_allclose(runout, [math.sqrt(104.0), math.sqrt(104.0), 5.0], atol=1e-12)
    np.testing.assert_allclose(lateral, [2.0, -2.0, 0.0], atol=1e-12)


def test_runout_and_lateral_along_y_with_a_rock_at_rest():
    """Moves (-3, 10), (3, 10) and (0, 0): the mean direction is +y (the rock that did not move
    is left out of it; its run-out and offset are 0). Left of +y is -x, so (-3, 10) has the
    offset +3 and (3, 10) has -3; run-outs sqrt(109), sqrt(109), 0. Tolerance 1e-12."""
    release = np.array([[0.0, 0.0], [20.0, -5.0], [7.0, 7.0]])
    final = release + np.array([[-3.0, 10.0], [3.0, 10.0], [0.0, 0.0]])
    runout, lateral = runout_and_lateral(release, final)
    np.testing.assert_allclose(runout, [math.sqrt(109.0), math.sqrt(109.0), 0.0], atol=1e-12)
    np.testing.assert_allclose(lateral, [3.0, -3.0, 0.0], atol=1e-12)


def test_runout_and_lateral_oblique_direction():
    """Moves (3, 4) and (4, 3): unit vectors (0.6, 0.8) and (0.8, 0.6) average to (0.7, 0.7),
    direction (1, 1)/sqrt 2; offsets dir_x d_y - dir_y d_x = (4 - 3)/sqrt 2 and
    (3 - 4)/sqrt 2 = +-0.70711; run-outs 5. Tolerance 1e-12."""
    release = np.zeros((2, 2))
    final = np.array([[3.0, 4.0], [4.0, 3.0]])
    runout, lateral = runout_and_lateral(release, final)
    np.testing.assert_allclose(runout, [5.0, 5.0], atol=1e-12)
    np.testing.assert_allclose(lateral, [1.0 / math.sqrt(2.0), -1.0 / math.sqrt(2.0)], atol=1e-12)


# --- summaries: percentages, percentile intervals, censoring warnings ----------------------------


@pytest.mark.parametrize(
    ("fraction", "text"),
    [
        (0.0, "0 %"),
        (1.0, "100 %"),
        (0.5, "50 %"),
        (0.996, "99.6 %"),
        (0.9996, "99.96 %"),
        (0.99999, "99.999 %"),
        (0.004, "0.4 %"),
        (0.0004, "0.04 %"),
        (0.123, "12.3 %"),
        (1 / 3, "33.333 %"),
        (0.999999, "> 99.999 %"),
        (1e-7, "< 0.001 %"),
    ],
)
def test_percentages_are_never_rounded_to_0_or_100(fraction, text):
    assert format_percent(fraction) == text


def test_quantile_interval_covers_at_its_level():
    """The order-statistic interval of the 95th percentile of n = 200 standard normal draws
    covers the true value (1.6449) in at least 95 % of 2000 repetitions, within the binomial
    standard error of the estimate (Monte Carlo, seeded)."""
    rng = np.random.default_rng(11)
    truth = 1.6448536269514722
    hits = 0
    trials = 2000
    for _ in range(trials):
        low, high = quantile_ci(rng.normal(size=200), 0.95)
        hits += low <= truth <= high
    coverage = hits / trials
    assert coverage >= 0.95 - 2 * np.sqrt(0.95 * 0.05 / trials)
    # and it is not trivially wide: below 0.99 (an exact binomial interval over-covers a little)
    assert coverage < 0.99


def test_quantile_interval_is_the_order_statistics_conover_gives():
    """n = 100, q = 0.5, 95 %: the binomial(100, 0.5) quantiles 40 and 60 give the 40th and
    61st smallest values (Conover 1999, Table A3 gives ranks 40 and 61)."""
    values = np.arange(1.0, 101.0)
    assert quantile_ci(values, 0.5) == [40.0, 61.0]
    assert quantile_ci(values[:5], 0.95) is None  # too few rocks for a 95 % interval


def test_warnings_name_the_censored_fraction_and_what_it_does():
    summary = {
        "fractions": {"stopped": 0.994, "left_domain": 0.004, "timed_out": 0.0, "failed": 0.002},
        "t_max": 60.0,
        "failures": ["newton_not_converged"],
        "pgs_cap_hits": 0,
    }
    left, failed = censoring_warnings(summary)
    assert left.startswith("0.4 % of the rocks left the DEM") and "lower bound" in left
    assert failed.startswith("0.2 % of the rocks failed numerically (newton_not_converged)")
    clean = {
        **summary,
        "fractions": {"stopped": 1.0, "left_domain": 0.0, "timed_out": 0.0, "failed": 0.0},
    }
    assert censoring_warnings(clean) == []


@pytest.mark.parametrize(
    "fractions",
    [
        {
            "stopped": 0.2925,
            "left_domain": 0.26625,
            "timed_out": 0.0025,
            "failed": 0.0,
            "caught": 0.43875,
        },
        {"stopped": 0.5, "left_domain": 0.25, "timed_out": 0.0, "failed": 0.25, "caught": 0.0},
        {"stopped": 1.0, "left_domain": 0.0, "timed_out": 0.0, "failed": 0.0, "caught": 0.0},
    ],
)
def test_the_summary_line_accounts_for_every_rock(fractions):
    """The shares the line prints (rocks at rest, caught by a net, left, timed out, failed) add
    up to every rock of the run; an outcome without rocks among caught and failed is left out."""
    summary = {
        "n_rocks": 800,
        "scheme": "implicit",
        "fractions": fractions,
        "kinetic_energy_kJ": {
            "path": {"mean": 1.0, "std": 0.5},
            "rock_max": {"p50": 7.0, "p95": 9.5, "max": 12.0},
        },
        "runout_m": {"mean": 10.0, "p50": 9.0, "p95": 20.0, "max": 25.0},
        "wall_time_s": 1.0,
        "rock_steps_per_s": 1e6,
    }
    whole = summary_line(summary)
    # the energy is each rock's largest, not the mean over the path samples
    assert "largest kinetic energy of each rock: median 7.0 kJ, p95 9.5 kJ, max 12.0 kJ" in whole
    line = whole.split(";")[0]
    shares = [float(x) for x in re.findall(r"([0-9.]+) %", line)]
    assert sum(shares) == pytest.approx(100.0, abs=1e-9)
    assert ("caught by a net" in line) == (fractions["caught"] > 0)
    assert ("failed" in line) == (fractions["failed"] > 0)


def test_every_number_of_the_summary_line_is_the_named_statistic_of_the_summary():
    """The end-of-run line of a run whose energies and run-outs have median, mean, p95 and max
    all different (a median of 817.8 kJ was printed as the largest energy, a mean run-out
    without its name): every number of the line is preceded by the name of its statistic, and
    each equals that statistic of summary.json to the 0.1 the line prints."""
    summary = {
        "n_rocks": 800,
        "scheme": "implicit",
        "fractions": {"stopped": 0.9, "left_domain": 0.05, "timed_out": 0.05, "failed": 0.0},
        "kinetic_energy_kJ": {
            "path": {"mean": 120.0, "std": 80.0},
            "rock_max": {"mean": 1520.3, "p50": 817.8, "p95": 6366.4, "max": 20744.2},
        },
        "runout_m": {"mean": 250.2, "p50": 231.7, "p95": 402.9, "max": 512.6},
        "wall_time_s": 12.34,
        "rock_steps_per_s": 2.5e6,
    }
    line = summary_line(summary)
    names = {"median": "p50", "mean": "mean", "p95": "p95", "max": "max"}
    expected = {
        "kJ": summary["kinetic_energy_kJ"]["rock_max"],
        "m": summary["runout_m"],
    }
    found = re.findall(r"(median|mean|p95|max) ([0-9.]+) (kJ|m)\b", line)
    assert {(unit, name) for name, _, unit in found} == {
        ("kJ", "median"),
        ("kJ", "p95"),
        ("kJ", "max"),
        ("m", "mean"),
        ("m", "median"),
        ("m", "p95"),
        ("m", "max"),
    }
    for name, value, unit in found:
        assert float(value) == pytest.approx(expected[unit][names[name]], abs=0.05), (name, unit)
    assert "largest kinetic energy of each rock: median 817.8 kJ" in line
    assert "max 20744.2 kJ" in line and "run-out: mean 250.2 m" in line
    # no number without its name: the shares carry %, the time is the wall time
    rest = re.sub(r"(median|mean|p95|max) [0-9.]+ (kJ|m)\b", "", line)
    rest = re.sub(r"[0-9.]+ %", "", rest)
    rest = rest.replace("wall time 12.3 s", "").replace("2.50 M rock-steps/s", "")
    assert re.findall(r"[0-9]+(?:\.[0-9]+)?", rest) == ["800"]
