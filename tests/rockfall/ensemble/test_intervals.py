"""Per-cell intervals against exact binomial and order-statistic values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta, binom, binomtest

from tumble.rockfall.ensemble.cells import N_BINS, bin_edges, bin_index, chunk_cells
from tumble.rockfall.ensemble.intervals import (
    beta_ppf,
    bin_quantile_interval,
    binom_ppf,
    clopper_pearson,
    order_statistic_ranks,
    relative_half_width,
)
from tumble.rockfall.ensemble.rasters import rasters_from_cells, rasters_from_visits
from tumble.rockfall.ensemble.record import N_QUANTITIES


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (7, 40), (40, 40), (13, 1000), (500, 1000)])
def test_clopper_pearson_equals_the_exact_binomial_test_interval(k, n):
    """Against scipy's exact (Clopper-Pearson) interval of the binomial test, to 1e-12."""
    low, high = clopper_pearson(np.array([k]), n)
    exact = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    assert low[0] == pytest.approx(exact.low, abs=1e-12)
    assert high[0] == pytest.approx(exact.high, abs=1e-12)


def test_clopper_pearson_at_the_ends_has_the_closed_form():
    """k = 0: high = 1 - (alpha/2)^(1/n); k = n: low = (alpha/2)^(1/n) (solving the binomial tail
    by hand)."""
    n = np.array([1, 5, 59, 1000])
    low0, high0 = clopper_pearson(np.zeros(4), n)
    lown, highn = clopper_pearson(n, n)
    np.testing.assert_allclose(high0, 1.0 - 0.025 ** (1.0 / n), rtol=1e-12)
    np.testing.assert_allclose(lown, 0.025 ** (1.0 / n), rtol=1e-12)
    assert np.all(low0 == 0.0) and np.all(highn == 1.0)


@pytest.mark.parametrize("m", [72, 73, 100, 500, 2000])
def test_order_statistic_ranks_cover_and_are_the_narrowest_equal_tailed(m):
    """The number N of values below the true 95th percentile is binomial(m, 0.95): the interval
    [x_(l), x_(u)] covers it with P(l <= N < u) >= 0.95, each tail <= 2.5 %, and moving either
    rank inwards breaks that tail bound."""
    l, u = (int(v[0]) for v in order_statistic_ranks(np.array([m]), 0.95))
    assert 1 <= l < u <= m
    below = binom.cdf(l - 1, m, 0.95)  # P(N < l)
    above = binom.sf(u - 1, m, 0.95)  # P(N >= u)
    assert below <= 0.025 + 1e-12 and above <= 0.025 + 1e-12
    assert 1.0 - below - above >= 0.95
    assert binom.cdf(l, m, 0.95) > 0.025  # l + 1 would leave more than 2.5 % below
    assert binom.sf(u - 2, m, 0.95) > 0.025  # u - 1 would leave more than 2.5 % above


def test_too_few_values_give_no_interval():
    """Below 72 values the 95 % upper rank of the 95th percentile exceeds the count: the upper
    tail P(N >= m) = 0.95^m is <= 2.5 % from m = 72 on (0.95^71 = 0.0262, 0.95^72 = 0.0249)."""
    _, u = order_statistic_ranks(np.array([71, 72]), 0.95)
    assert u[0] > 71 and u[1] == 72


def test_histogram_interval_holds_the_exact_order_statistics_within_a_bin():
    """A cell with the 100 values 1..100 J (ranks known by hand: x_(r) = r): the streamed
    interval is [lower edge of the bin of x_(l), upper edge of the bin of x_(u)], contains
    [x_(l), x_(u)] and is at most 1/64 wider on each side."""
    values = np.arange(1.0, 101.0)
    cell = np.full(values.size, 7, dtype=np.int64)
    visit_max = np.zeros((values.size, N_QUANTITIES))
    visit_max[:, 0] = values
    merged = chunk_cells(cell, visit_max)
    low, high = bin_quantile_interval(
        merged["cell_index"], merged["energy_bin_key"], merged["energy_bin_count"], 0.95
    )
    l, u = (int(v[0]) for v in order_statistic_ranks(np.array([100]), 0.95))
    exact_low, exact_high = float(l), float(u)  # x_(r) = r
    assert bin_edges(bin_index(np.array([exact_low])))[0][0] == low[0]
    assert bin_edges(bin_index(np.array([exact_high])))[1][0] == high[0]
    assert low[0] <= exact_low < low[0] * (1 + 1 / 64)
    assert high[0] / (1 + 1 / 64) < exact_high <= high[0]


def test_bin_edges_bracket_every_value():
    """Every value lies in [low, high) of its bin; bin 0 is [0, 2^-10)."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.exponential(50.0, 2000), [0.0, 2.0**-11, 1.0, 2.0**39]])
    low, high = bin_edges(bin_index(x))
    assert np.all((low <= x) & (x < high))
    assert bin_edges(np.array([0]))[1][0] == 2.0**-10
    assert np.isinf(bin_edges(np.array([N_BINS - 1]))[1][0])


def test_interval_rasters_streamed_equal_the_visit_reference():
    """The interval rasters of the merged cells equal those of all visits at once."""
    rng = np.random.default_rng(5)
    rock = np.repeat(np.arange(300), 2)
    cell = rng.integers(0, 6, rock.size)
    keep = np.unique(rock * 10 + cell, return_index=True)[1]
    rock, cell = rock[keep], cell[keep]
    value = np.column_stack([rng.lognormal(8.0, 1.0, rock.size), *rng.random((3, rock.size))])
    deposits = np.array([-1])
    exact = rasters_from_visits((2, 3), 300, rock, cell, value, deposits)
    streamed = rasters_from_cells((2, 3), 300, chunk_cells(cell, value), deposits)
    for name in (
        "reach_probability_low",
        "reach_probability_high",
        "kinetic_energy_p95_low",
        "kinetic_energy_p95_high",
    ):
        np.testing.assert_array_equal(exact[name], streamed[name], err_msg=name)
    assert np.isfinite(streamed["kinetic_energy_p95_low"]).any()
    ok = np.isfinite(streamed["kinetic_energy_p95_low"])
    p95 = streamed["kinetic_energy_p95"][ok]
    assert np.all(streamed["kinetic_energy_p95_low"][ok] <= p95 * (1 + 1 / 64))
    assert np.all(streamed["kinetic_energy_p95_high"][ok] >= p95 / (1 + 1 / 64))
    # widened to the bins' edges, but never above the cell's largest value
    largest = streamed["kinetic_energy_max"][ok]
    assert np.all(streamed["kinetic_energy_p95_high"][ok] <= largest)
    assert np.any(streamed["kinetic_energy_p95_high"][ok] == largest)


def test_relative_half_width():
    """max(p - low, high - p) / p; inf without a value or an interval."""
    out = relative_half_width(
        np.array([0.5, 0.0, 2.0]), np.array([0.4, 0.0, np.nan]), np.array([0.55, 0.1, 3.0])
    )
    assert out[0] == pytest.approx(0.2) and np.isinf(out[1]) and np.isinf(out[2])


def _bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.int64)


def test_the_quantiles_without_scipy_stats_are_its_quantiles_bit_for_bit():
    """beta_ppf and binom_ppf against scipy.stats.beta.ppf and binom.ppf, bit for bit, on the
    arguments the intervals take (counts of 1 to 10^7 trials, the ends k = 0 and k = n, where
    beta.ppf gives NaN, and invalid counts) at the levels of the maps and the summary."""
    rng = np.random.default_rng(7)
    n = np.concatenate([np.arange(1, 200), rng.integers(200, 10**7, size=3000)]).astype(float)
    k = np.concatenate([np.zeros(5), n[5:] * rng.random(n.size - 5)]).round()
    k[-5:] = n[-5:]
    for q in (0.025, 0.975, 0.5):
        for a, b in ((k, n - k + 1.0), (k + 1.0, n - k), (k, n - k)):
            assert np.array_equal(_bits(beta_ppf(q, a, b)), _bits(beta.ppf(q, a, b)))
    m = np.concatenate([np.arange(0, 300), rng.integers(300, 10**7, size=3000)])
    for q in (0.025, 0.975):
        for prob in (0.05, 0.5, 0.95, 0.99, 0.0, 1.0):
            assert np.array_equal(_bits(binom_ppf(q, m, prob)), _bits(binom.ppf(q, m, prob)))
    odd = np.array([-1.0, 2.5, 3.0])
    assert np.array_equal(_bits(binom_ppf(0.975, odd, 0.95)), _bits(binom.ppf(0.975, odd, 0.95)))


def test_a_run_does_not_import_scipy_stats():
    """The intervals and the summary's quantile intervals leave scipy.stats unimported (its
    import costs a run about 0.3 s)."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from tumble.rockfall.ensemble.intervals import clopper_pearson, order_statistic_ranks\n"
        "from tumble.rockfall.ensemble.reduce import quantile_ci\n"
        "clopper_pearson(np.array([0, 3, 10]), 10); order_statistic_ranks(np.array([100]), 0.95)\n"
        "quantile_ci(np.arange(100.0), 0.95)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_distinct_counts_without_sorting_equal_numpy_unique():
    """The table of whole counts gives np.unique's values and indices; anything that is not
    a count within the table's bound takes np.unique itself."""
    from tumble.rockfall.ensemble.intervals import _distinct, _distinct_counts

    rng = np.random.default_rng(5)
    for x in (
        rng.integers(0, 1001, 20_000).astype(np.float64),
        np.zeros(7),
        np.array([3.0, 0.0, 3.0, 1e4 + 20]),
    ):
        (values,), inverse = _distinct(x)
        want_values, want_inverse = np.unique(x, return_inverse=True)
        assert values.dtype == want_values.dtype and np.array_equal(values, want_values)
        assert np.array_equal(inverse, want_inverse)
    for other in ([0.5, 1.0], [-0.0, 1.0], [np.nan, 1.0], [1e9, 1.0], [-1.0, 2.0]):
        x = np.array(other)
        assert _distinct_counts(x) is None
        (values,), inverse = _distinct(x)
        want_values, want_inverse = np.unique(x, return_inverse=True)
        assert np.array_equal(values, want_values, equal_nan=True)
        assert np.array_equal(inverse, want_inverse)
