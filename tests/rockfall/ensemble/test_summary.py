"""Honest summaries: percentages that never round to 0 % or 100 %, distribution-free intervals
of percentiles that cover at their stated level, and warnings that say what is censored."""

import io

import numpy as np
import pytest

from tumble.rockfall.ensemble.chunks import describe_differences
from tumble.rockfall.ensemble.progress import Progress
from tumble.rockfall.ensemble.reduce import censoring_warnings, format_percent, quantile_ci


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


def test_resume_differences_are_named():
    before = {"seed": 1, "release": {"height": 1.5}, "rocks": 10}
    now = {"seed": 9, "release": {"height": 2.0}, "rocks": 10}
    text = describe_differences(before, now)
    assert "release.height 1.5 in the chunks, 2.0 now" in text
    assert "seed 1 in the chunks, 9 now" in text
    assert "rocks" not in text
    assert "same settings" in describe_differences(before, before)


def test_progress_lines_with_rate_and_time_left():
    """Off a terminal: a line at most every 10 s of a (fake) clock, with the session's
    rock-steps/s and the time left at its pace, and one line at the end."""
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(100, 20, "lines", stream=stream, every=10.0, clock=lambda: now[0])
    now[0] = 4.0
    progress.update(10, 4_000_000)  # 4 s: no line yet
    assert stream.getvalue() == ""
    now[0] = 12.0
    progress.update(20, 8_000_000)  # 12 s, 30 rocks in 12 s, 50 left: 20 s
    assert stream.getvalue() == "rocks 50/100 (50 %), 1.00 M rock-steps/s, about 20 s left\n"
    now[0] = 30.0
    progress.update(50, 18_000_000)
    progress.close()
    assert stream.getvalue().splitlines()[-1] == "rocks 100/100 (100 %), 1.00 M rock-steps/s"
