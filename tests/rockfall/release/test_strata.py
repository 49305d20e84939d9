"""Stratified sampling of a release (tumble.rockfall.release.strata): one rock per stratum of
probability 1/n, the nested split into parts of exact weight, every part's expected share of
the rocks its weight exactly, and the Hilbert order of cells."""

import numpy as np
import pytest

from tumble.rockfall.release.strata import (
    Strata,
    hilbert_order,
    positions,
    split,
    stratum_rng,
)


def test_one_rock_per_stratum_from_its_own_stream():
    n, seed = 37, 5
    u = positions(seed, n)
    k = np.arange(n)
    assert np.all(u >= k / n) and np.all(u < (k + 1) / n)
    # rock k's offset is the first uniform of its own stream: the same alone as in the run
    assert u[11] == (11 + stratum_rng(seed, 11).random()) / n
    assert np.array_equal(positions(seed, n), u)
    assert not np.array_equal(positions(seed + 1, n), u)


def test_split_into_parts_of_the_weights():
    u = np.array([0.0, 0.1, 0.2499, 0.25, 0.5, 0.99])
    index, rest = split(u, [1.0, 0.0, 3.0])
    # parts [0, 0.25), nothing, [0.25, 1): a part of zero weight holds no position
    assert index.tolist() == [0, 0, 0, 2, 2, 2]
    assert rest == pytest.approx([0.0, 0.4, 0.9996, 0.0, 1.0 / 3.0, 0.99 / 0.75 - 1.0 / 3.0])
    assert np.all((rest >= 0.0) & (rest < 1.0))
    # trailing and leading parts of zero weight are never chosen, even at the ends
    index, _ = split(np.array([0.0, np.nextafter(1.0, 0.0)]), [0.0, 0.3, 0.3, 0.0])
    assert index.tolist() == [1, 2]
    with pytest.raises(ValueError, match="positive sum"):
        split(u, [0.0, 0.0])


def test_shares_of_areas_and_classes_exact():
    n = 250
    weights, shares = [43035.0, 11589.0, 2000.0], [0.7, 0.3]
    w = np.array(weights) / sum(weights)
    expected = n * np.outer(w, shares)  # rocks of each (area, class) stratum
    counts = []
    for seed in range(400):
        strata = Strata.draw(seed, n, weights, shares)
        # rocks are numbered area by area and, in an area, class by class
        key = strata.source * 2 + strata.class_id
        assert np.all(np.diff(key) >= 0)
        c = np.bincount(key, minlength=6).reshape(3, 2)
        # each stratum and area less than 2 rocks from its share, the first area less than 1
        assert np.all(np.abs(c - expected) < 2.0)
        assert np.all(np.abs(c.sum(axis=1) - n * w) < 2.0)
        assert abs(c[0].sum() - n * w[0]) < 1.0
        counts.append(c)
    counts = np.array(counts, dtype=np.float64)
    # the expected count is n w exactly: the mean over 400 seeds within 4 standard errors
    # (the counts are floor or ceiling of n w; their spread is at most 1)
    mean = counts.mean(axis=0)
    error = counts.std(axis=0, ddof=1) / np.sqrt(counts.shape[0])
    assert np.all(np.abs(mean - expected) <= 4.0 * error + 1e-12)
    # plain rounding would be off by the fractional part every time: here it averages out
    assert np.any(np.abs(mean - np.rint(expected)) > 0.05)


def test_hilbert_order_visits_neighbours():
    j, i = np.divmod(np.arange(64), 8)
    order = hilbert_order(i, j)
    assert sorted(order.tolist()) == list(range(64))
    step = np.abs(np.diff(i[order])) + np.abs(np.diff(j[order]))
    assert np.all(step == 1)
    # any set of cells: a permutation of them, the same for the same cells
    rng = np.random.default_rng(0)
    ii, jj = rng.integers(0, 50, 30), rng.integers(0, 50, 30)
    assert sorted(hilbert_order(ii, jj).tolist()) == list(range(30))
