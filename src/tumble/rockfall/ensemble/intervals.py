"""Per-cell 95 % intervals of the hazard rasters: the reach probability from its counts, the 95th
percentile of the energy from the streamed histograms.

**Reach probability.** A cell passed by ``k`` of ``n`` rocks has the estimate ``p = k / n``; its
interval is the Clopper-Pearson ("exact") interval, the proportions whose binomial test does not
reject ``k`` at level ``alpha / 2`` on either side::

    low  = B^-1(alpha / 2;     k,     n - k + 1)    (0 when k = 0)
    high = B^-1(1 - alpha / 2; k + 1, n - k)        (1 when k = n)

with ``B^-1`` the quantile of the beta distribution (C. J. Clopper, E. S. Pearson, The use of
confidence or fiducial limits illustrated in the case of the binomial, Biometrika 26 (1934)
404-413). It covers the true probability with probability at least ``1 - alpha`` for every ``p``,
unlike the Wilson score interval (E. B. Wilson, Probable inference, the law of succession, and
statistical inference, J. Am. Stat. Assoc. 22 (1927) 209-212), which is shorter but may cover
less; a map that an engineer signs takes the conservative one.

**95th percentile of the energy.** The values of a cell (each passing rock's maximum kinetic
energy there) are i.i.d. draws; the number of them below the true quantile ``x_q`` is binomial
``(m, q)``, so the order statistics ``x_(l) <= x_(u)`` with the 1-based ranks::

    l = F^-1(alpha / 2; m, q),        u = F^-1(1 - alpha / 2; m, q) + 1

(``F^-1`` the binomial quantile) cover ``x_q`` with probability at least ``1 - alpha`` whatever
the distribution (G. J. Hahn, W. Q. Meeker, Statistical Intervals, Wiley 1991, section 5.2; H.
A. David, H. N. Nagaraja, Order Statistics, 3rd ed., Wiley 2003, section 7.1), the same ranks as
:func:`tumble.rockfall.ensemble.reduce.quantile_ci`. A cell with too few values for both ranks
(``l < 1`` or ``u > m``: fewer than 72 values at q = 0.95, since 0.95^71 > 2.5 %) has no
interval (NaN). The values themselves are not kept; the cell's histogram
(:mod:`tumble.rockfall.ensemble.cells`: 64 bins per octave, each ``[a, a (1 + 1/64))`` at most,
below 2^-10 J one bin ``[0, 2^-10)``) says in which bin the ``l``-th and the ``u``-th value lie,
and the interval is widened to the bins' outer edges: ``[lower edge of the bin of x_(l), upper
edge of the bin of x_(u)]``. It holds the exact order-statistic interval, so its coverage is
still at least ``1 - alpha``; the widening is at most 1/64 (1.6 %) of each bound.
"""

from __future__ import annotations

import numpy as np
import scipy.special._ufuncs as _scu

from tumble.rockfall.ensemble.cells import N_BINS, _segments, bin_edges, search_from

#: confidence level of the per-cell intervals
LEVEL = 0.95


def _distinct(*arrays: np.ndarray) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The distinct tuples of the equal-shape ``arrays`` (each flattened) and the index of each
    element's tuple: a function of them is then evaluated once per distinct tuple (a run of n
    rocks has at most n + 1 distinct counts over its thousands of cells)."""
    flat = np.stack([np.asarray(a, dtype=np.float64).ravel() for a in arrays], axis=1)
    if flat.shape[1] == 1:
        counted = _distinct_counts(flat[:, 0])
        if counted is not None:
            return counted
        values, inverse = np.unique(flat[:, 0], return_inverse=True)
        return (values,), inverse.reshape(-1)
    rows, inverse = np.unique(flat, axis=0, return_inverse=True)
    return tuple(rows.T), inverse.reshape(-1)


def _distinct_counts(x: np.ndarray) -> tuple[tuple[np.ndarray], np.ndarray] | None:
    """:func:`_distinct` of one array of counts (whole numbers from +0 to a bound that a table
    of them may have: at most ``4 size + 1024``) without sorting, by a table indexed by the
    count; the same values and indices as ``np.unique``. ``None`` for anything else (a
    fraction, a negative number or -0, NaN, a count beyond the bound)."""
    if x.size == 0 or not (x.min() >= 0.0 and x.max() <= 4 * x.size + 1024):  # NaN: False
        return None
    whole = x.astype(np.int64)
    if not np.array_equal(whole, x) or np.signbit(x).any():
        return None
    present = np.bincount(whole) > 0
    values = np.flatnonzero(present)
    index = np.cumsum(present) - 1
    return (values.astype(np.float64),), index[whole]


def beta_ppf(q: float, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``scipy.stats.beta.ppf(q, a, b)`` for ``0 < q < 1``, elementwise, without importing
    ``scipy.stats`` (about 0.3 s, most of it building its distributions' docstrings): the
    function that ``beta.ppf`` itself evaluates (``scipy.special``'s Boost ``_beta_ppf``) where
    ``a > 0`` and ``b > 0``, NaN elsewhere, as ``beta.ppf`` gives; the same bits
    (``tests/rockfall/ensemble/test_intervals.py``). ``scipy.stats`` where that function is
    missing."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ppf = getattr(_scu, "_beta_ppf", None)
    if ppf is None or not 0.0 < q < 1.0:
        from scipy.stats import beta

        return np.asarray(beta.ppf(q, a, b), dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((a > 0) & (b > 0), ppf(q, a, b), np.nan)


def binom_ppf(q: float, n: np.ndarray | int, p: float) -> np.ndarray:
    """``scipy.stats.binom.ppf(q, n, p)`` for ``0 < q < 1`` and ``0 <= p <= 1``, elementwise
    over the trial counts ``n``, without importing ``scipy.stats``: ``scipy.special``'s Boost
    ``_binom_ppf``, the function ``binom.ppf`` evaluates, where ``n`` is a whole number >= 0,
    NaN elsewhere; the same bits (as :func:`beta_ppf`)."""
    n = np.asarray(n)
    ppf = getattr(_scu, "_binom_ppf", None)
    if ppf is None or not 0.0 < q < 1.0 or not 0.0 <= p <= 1.0:
        from scipy.stats import binom

        return np.asarray(binom.ppf(q, n, p), dtype=np.float64)
    whole = (n >= 0) & (n == np.floor(n))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(whole, ppf(q, n, p) + 0.0, np.nan)


def clopper_pearson(
    k: np.ndarray, n: np.ndarray | int, level: float = LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """The Clopper-Pearson interval ``(low, high)`` of the binomial proportion of ``k``
    successes in ``n`` trials (module docstring), elementwise."""
    k = np.asarray(k, dtype=np.float64)
    n = np.broadcast_to(np.asarray(n, dtype=np.float64), k.shape)
    alpha = 1.0 - level
    scalar_n = n.size > 0 and bool(np.all(n == n.flat[0]))
    (kd, *rest), inverse = _distinct(k) if scalar_n else _distinct(k, n)
    nd = np.full(kd.shape, n.flat[0]) if scalar_n else rest[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(kd > 0, beta_ppf(alpha / 2.0, kd, nd - kd + 1.0), 0.0)
        high = np.where(kd < nd, beta_ppf(1.0 - alpha / 2.0, kd + 1.0, nd - kd), 1.0)
    low = np.asarray(low, dtype=np.float64)[inverse].reshape(k.shape)
    high = np.asarray(high, dtype=np.float64)[inverse].reshape(k.shape)
    return low, high


def order_statistic_ranks(
    m: np.ndarray | int, q: float, level: float = LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """The 1-based ranks ``(l, u)`` of the distribution-free interval of the ``q`` quantile
    from ``m`` values (module docstring); ``l < 1`` or ``u > m`` where there is none."""
    m = np.asarray(m, dtype=np.int64)
    alpha = 1.0 - level
    (md,), inverse = _distinct(m)
    md = md.astype(np.int64)
    low = binom_ppf(alpha / 2.0, md, q).astype(np.int64)[inverse].reshape(m.shape)
    high = (binom_ppf(1.0 - alpha / 2.0, md, q).astype(np.int64) + 1)[inverse].reshape(m.shape)
    return low, high


def bin_quantile_interval(
    cells: np.ndarray, keys: np.ndarray, counts: np.ndarray, q: float, level: float = LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell of the sorted ``cells``, the distribution-free interval of the ``q`` quantile
    (0-1) of its values from their histogram (``keys = cell * N_BINS + bin`` sorted, with
    ``counts``), widened to the bins' edges (module docstring); NaN where there is none."""
    low_out = np.full(cells.size, np.nan)
    high_out = np.full(cells.size, np.nan)
    if keys.size == 0:
        return low_out, high_out
    owner = keys // N_BINS
    starts = _segments(owner)
    total = np.add.reduceat(counts, starts)
    cumulative = np.cumsum(counts)
    before = cumulative[starts] - counts[starts]
    rank_low, rank_high = order_statistic_ranks(total, q, level)
    ok = (rank_low >= 1) & (rank_high <= total)
    at = np.searchsorted(cells, owner[starts])
    # the entry holding the value of 1-based rank r of its cell: first cumulative count >= r
    lo_entry = search_from(cumulative, before[ok] + rank_low[ok], starts[ok], False)
    hi_entry = search_from(cumulative, before[ok] + rank_high[ok], starts[ok], False)
    low_out[at[ok]] = bin_edges(keys[lo_entry] % N_BINS)[0]
    high_out[at[ok]] = bin_edges(keys[hi_entry] % N_BINS)[1]
    return low_out, high_out


def relative_half_width(value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The larger distance from ``value`` to a bound of its interval, relative to ``value``
    (inf where the value is 0 or there is no interval)."""
    value = np.asarray(value, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.maximum(value - low, high - value) / value
    return np.where(np.isfinite(half) & (value > 0), half, np.inf)
