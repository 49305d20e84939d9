"""Per-cell accumulators: the bins and their stated error, percentiles from the bins against
numpy's exact ones, fixed-point sums, merges that do not depend on grouping or order, and the
rasters of a hand-made grid against the exact reference."""

from fractions import Fraction

import numpy as np
import pytest

from tumble.rockfall.ensemble import cells
from tumble.rockfall.ensemble.cells import (
    BINS_PER_OCTAVE,
    CELL_FIELDS,
    FLOOR,
    N_BINS,
    RELATIVE_ERROR,
    SUM_RESOLUTION,
    CellMerger,
    bin_index,
    bin_percentile,
    bin_value,
    chunk_cells,
    energy_mean,
    fixed_point,
    merge_cells,
)
from tumble.rockfall.ensemble.rasters import (
    RASTERS,
    ZERO_OUTSIDE,
    rasters_from_cells,
    rasters_from_visits,
)
from tumble.rockfall.ensemble.record import Q_ENERGY

#: slack for the rounding of the interpolation itself (a few ulps)
ULPS = 1e-12


def test_bins_hold_their_values_within_the_stated_error():
    """10^5 values log-uniform over 2^-10 .. 2^39 and every bin edge: the representative of a
    value's bin is within RELATIVE_ERROR = 1/129 of it; bins grow with the value; an edge
    2^e (1 + j/64) opens bin j of its octave exactly; below the floor is bin 0 (value 0)."""
    rng = np.random.default_rng(5)
    x = np.exp2(rng.uniform(-10.0, 39.0, 100_000))
    edges = np.ldexp(1.0 + np.arange(BINS_PER_OCTAVE) / BINS_PER_OCTAVE, 3)
    x = np.concatenate([x, edges, [FLOOR, 2.0**39]])
    index = bin_index(x)
    error = np.abs(bin_value(index) - x) / x
    assert error.max() <= RELATIVE_ERROR * (1 + ULPS)
    assert error.max() > 0.9 * RELATIVE_ERROR  # the bound is tight, not loose
    order = np.argsort(x)
    assert np.all(np.diff(index[order]) >= 0)
    first_of_octave_3 = (3 - (-10)) * BINS_PER_OCTAVE + 1
    assert np.array_equal(bin_index(edges), first_of_octave_3 + np.arange(BINS_PER_OCTAVE))
    assert np.array_equal(bin_index(np.array([0.0, FLOOR / 2, -1.0])), [0, 0, 0])
    assert bin_value(np.array([0]))[0] == 0.0
    assert bin_index(np.array([2.0**60]))[0] == N_BINS - 1


@pytest.mark.parametrize("q", [50.0, 95.0, 99.0])
def test_bin_percentile_is_within_the_stated_bound_of_numpy(q):
    """60 cells with 1 to 400 lognormal values each (spread over decades, some cells with many
    ties): the percentile from the bins is within RELATIVE_ERROR of numpy's exact
    (linear) percentile of each cell."""
    rng = np.random.default_rng(int(q))
    sizes = rng.integers(1, 401, size=60)
    cells = np.repeat(np.arange(60) * 7 + 3, sizes)
    values = rng.lognormal(rng.uniform(-2, 12, 60).repeat(sizes), 1.5)
    values[::5] = np.round(values[::5])  # ties
    values = np.maximum(values, FLOOR)  # the relative bound holds from the floor on
    part = {
        "cell_index": cells,
        "cell_count": np.ones(cells.size, dtype=np.int64),
        "energy_bin_key": cells * N_BINS + bin_index(values),
        "energy_bin_count": np.ones(cells.size, dtype=np.int64),
    }
    merged = merge_cells([_full(part)])
    keys, counts = merged["energy_bin_key"], merged["energy_bin_count"]
    unique = np.unique(cells)
    estimate = bin_percentile(unique, keys, counts, q)
    exact = np.array([np.percentile(values[cells == c], q) for c in unique])
    assert np.all(np.abs(estimate - exact) <= RELATIVE_ERROR * exact * (1 + ULPS))


def _full(part: dict) -> dict:
    """A cell reduction with the fields ``part`` lacks filled neutrally."""
    n = part["cell_index"].size
    base = {
        "cell_count": np.ones(n, dtype=np.int64),
        "cell_max": np.zeros((n, 4)),
        "cell_energy_sum": np.zeros((n, 2), dtype=np.int64),
        "energy_bin_key": np.zeros(0, dtype=np.int64),
        "energy_bin_count": np.zeros(0, dtype=np.int64),
        "jump_bin_key": np.zeros(0, dtype=np.int64),
        "jump_bin_count": np.zeros(0, dtype=np.int64),
    }
    return {**base, **part}


def random_visits(seed: int, rocks: int = 300, cells: int = 500):
    """One row per (rock, cell): energies over six decades (J), speeds, rotations, jump
    heights with NaN where the rock rolled."""
    rng = np.random.default_rng(seed)
    rock, cell = [], []
    for k in range(rocks):
        c = np.unique(rng.integers(0, cells, size=rng.integers(1, 40)))
        rock.append(np.full(c.size, k))
        cell.append(c)
    rock_a, cell_a = np.concatenate(rock), np.concatenate(cell)
    value = np.empty((rock_a.size, 4))
    value[:, 0] = np.exp(rng.uniform(0.0, 14.0, rock_a.size))
    value[:, 1] = rng.uniform(0.0, 30.0, rock_a.size)
    value[:, 2] = rng.uniform(0.0, 5.0, rock_a.size)
    value[:, 3] = np.where(rng.random(rock_a.size) < 0.4, np.nan, rng.exponential(1.0, rock_a.size))
    return rock_a, cell_a, value


def test_merges_do_not_depend_on_grouping_or_order():
    """300 rocks' visits reduced in chunks of 7, 50 and 1000 rocks, the chunks merged in rock
    order, reversed and shuffled, through CellMerger (merging at the end or as they come):
    every field bit-identical."""
    rock, cell, value = random_visits(1)
    results = []
    for size in (7, 50, 1000):
        parts = [
            chunk_cells(
                cell[(rock >= a) & (rock < a + size)], value[(rock >= a) & (rock < a + size)]
            )
            for a in range(0, 300, size)
        ]
        for order in (
            parts,
            parts[::-1],
            [parts[i] for i in np.random.default_rng(size).permutation(len(parts))],
        ):
            # merged at the end, and merged whenever 64 rows wait
            for merger in (CellMerger(), CellMerger(merge_rows=64)):
                for part in order:
                    merger.add(part)
                results.append(merger.result())
    for other in results[1:]:
        for name in CELL_FIELDS:
            assert np.array_equal(results[0][name], other[name], equal_nan=True), name


def _numpy_merge(parts):
    """merge_cells written with numpy's stable sort and reductions, the reference."""

    def cat(name):
        return np.concatenate([p[name] for p in parts])

    cell = cat("cell_index")
    order = np.argsort(cell, kind="stable")
    first = np.r_[True, cell[order][1:] != cell[order][:-1]]
    starts = np.flatnonzero(first)
    out = {
        "cell_index": cell[order][starts],
        "cell_count": np.add.reduceat(cat("cell_count")[order], starts),
        "cell_max": np.fmax.reduceat(cat("cell_max")[order], starts, axis=0),
        "cell_energy_sum": np.add.reduceat(cat("cell_energy_sum")[order], starts, axis=0),
    }
    for name in ("energy", "jump"):
        keys, counts = cat(f"{name}_bin_key"), cat(f"{name}_bin_count")
        order = np.argsort(keys, kind="stable")
        first = np.r_[True, keys[order][1:] != keys[order][:-1]]
        starts = np.flatnonzero(first)
        out[f"{name}_bin_key"] = keys[order][starts]
        out[f"{name}_bin_count"] = np.add.reduceat(counts[order], starts)
    return out


@pytest.mark.parametrize("seed", [2, 3])
@pytest.mark.parametrize("threaded", [False, True])
def test_compiled_merge_equals_the_numpy_reference(seed, threaded, monkeypatch):
    """The compiled merge (radix order, one pass) gives every field of the numpy reference,
    bit for bit, for 300 rocks' visits reduced in chunks of 13 rocks, with the jump histogram
    merged on this thread or on a second one."""
    monkeypatch.setattr(cells, "PARALLEL_MERGE_ROWS", 0 if threaded else 1 << 40)
    rock, cell, value = random_visits(seed)
    parts = [
        chunk_cells(cell[(rock >= a) & (rock < a + 13)], value[(rock >= a) & (rock < a + 13)])
        for a in range(0, 300, 13)
    ]
    merged = merge_cells(parts)
    reference = _numpy_merge(parts)
    for name in CELL_FIELDS:
        assert merged[name].dtype == reference[name].dtype, name
        assert np.array_equal(merged[name], reference[name], equal_nan=True), name


def test_fixed_point_mean_is_within_its_resolution_of_the_exact_mean():
    """Per cell, the mean from the fixed-point sums is within half the resolution (2^-25 J) of
    the exact rational mean of the float values (plus one rounding of the result)."""
    _, cell, value = random_visits(2)
    merged = chunk_cells(cell, value)
    mean = energy_mean(merged)
    for k, c in enumerate(merged["cell_index"][:80]):
        exact = sum(Fraction(v) for v in value[cell == c, Q_ENERGY]) / int((cell == c).sum())
        assert abs(Fraction(mean[k]) - exact) <= SUM_RESOLUTION / 2 + abs(exact) * 2**-52
    assert np.array_equal(fixed_point(np.array([0.0, 1.0, 2.0**40])), [0, 2**24, 2**62])


def test_percentiles_from_bins_never_exceed_the_cell_s_largest_value():
    """60 rocks over 3000 cells (most cells passed by one rock): a percentile read from the bins
    never exceeds the cell's exact largest value (a bin's representative lies up to
    RELATIVE_ERROR above the values in it), and a cell one rock passed has that rock's value."""
    _, cell, value = random_visits(4, rocks=60, cells=3000)
    streamed = rasters_from_cells((60, 50), 60, chunk_cells(cell, value), np.array([-1]))
    one = streamed["passing_count"] == 1
    assert one.sum() > 500
    pairs = (
        ("kinetic_energy_p95", "kinetic_energy_max"),
        ("kinetic_energy_p99", "kinetic_energy_max"),
        ("jump_height_p95", "jump_height_max"),
    )
    for name, largest in pairs:
        ok = np.isfinite(streamed[name])
        assert ok.sum() > 500, name
        assert np.all(streamed[name][ok] <= streamed[largest][ok]), name
        both = one & ok
        assert np.array_equal(streamed[name][both], streamed[largest][both]), name


def test_rasters_from_cells_equal_the_exact_reference():
    """Random visits on a 20 x 25 grid: counts, reach probability, deposits and maxima
    bit-identical to rasters_from_visits (the exact reference), the mean within 2^-25 J, the
    percentiles within RELATIVE_ERROR; outside the window of reached cells the full grid holds
    0 for the counts and NaN for the values."""
    rock, cell, value = random_visits(3, rocks=200, cells=300)
    cell = cell + 100  # rows 4 .. 15 of 25 columns: a window smaller than the grid
    deposits = np.array([150, 151, 151, 399, -1])
    shape = (20, 25)
    exact = rasters_from_visits(shape, 200, rock, cell, value, deposits)
    streamed = rasters_from_cells(shape, 200, chunk_cells(cell, value), deposits)
    assert streamed.window.j0 == 4 and streamed.window.i0 == 0
    approximate = {
        "kinetic_energy_mean",
        "kinetic_energy_p95",
        "kinetic_energy_p99",
        "jump_height_p95",
        "jump_height_normal_p95",
    }
    for name in RASTERS:
        a, b = exact[name], streamed[name]
        assert a.shape == b.shape == shape
        assert np.array_equal(np.isnan(a), np.isnan(b)), name
        if name not in approximate:
            assert np.array_equal(a, b, equal_nan=True), name
    ok = np.isfinite(exact["kinetic_energy_mean"])
    np.testing.assert_allclose(
        streamed["kinetic_energy_mean"][ok],
        exact["kinetic_energy_mean"][ok],
        rtol=1e-14,
        atol=2.0**-25 * 1e-3,
    )
    for name in ("kinetic_energy_p95", "kinetic_energy_p99", "jump_height_p95"):
        ok = np.isfinite(exact[name])
        e, s = exact[name][ok], streamed[name][ok]
        # values here are above the floor (energies >= 1 J, jumps mostly well above 1 mm)
        assert np.all(np.abs(s - e) <= RELATIVE_ERROR * e * (1 + ULPS) + FLOOR), name
    outside = np.ones(shape, dtype=bool)
    w = streamed.window
    outside[w.j0 : w.j1, w.i0 : w.i1] = False
    for name in RASTERS:
        background = streamed[name][outside]
        if name == "reach_probability_high":  # Clopper-Pearson upper bound of 0 of 200 rocks
            np.testing.assert_allclose(background, 1.0 - 0.025 ** (1.0 / 200), rtol=1e-12)
        else:
            assert np.all(background == 0) if name in ZERO_OUTSIDE else np.isnan(background).all()
    assert streamed.in_window("passing_count").shape == (w.j1 - w.j0, w.i1 - w.i0)


def _rollers_reference(cells_, count, keys, counts):
    """The jump histogram with the rollers added as numpy's sort and sums give it."""
    flew = np.zeros(cells_.size, dtype=np.int64)
    np.add.at(flew, np.searchsorted(cells_, keys // N_BINS), counts)
    rolled = count - flew
    more = rolled > 0
    keys = np.concatenate([keys, cells_[more] * N_BINS + bin_index(np.zeros(int(more.sum())))])
    counts = np.concatenate([counts, rolled[more]])
    unique, at = np.unique(keys, return_inverse=True)
    return unique, np.bincount(at, weights=counts).astype(np.int64)


@pytest.mark.parametrize("seed", range(6))
def test_rollers_merged_in_one_pass_equal_the_sorted_reference(seed):
    """with_rollers (one compiled merge) against np.unique of the concatenated keys: cells
    with and without rollers, with and without a key already in bin 0, and without keys."""
    from tumble.rockfall.ensemble.rasters import with_rollers

    rng = np.random.default_rng(seed)
    cells_ = np.unique(rng.integers(0, 5000, 300))
    keys, counts, passed = [], [], []
    for cell in cells_:
        bins = np.unique(rng.integers(0, N_BINS, int(rng.integers(0, 6))))
        if bins.size and rng.random() < 0.3:
            bins[0] = 0
        c = rng.integers(1, 5, bins.size)
        keys.extend(cell * N_BINS + bins)
        counts.extend(c)
        passed.append(int(c.sum()) + int(rng.integers(0, 4)))
    keys = np.array(keys, dtype=np.int64)
    counts = np.array(counts, dtype=np.int64)
    passed = np.array(passed, dtype=np.int64)
    got = with_rollers(cells_, passed, keys, counts)
    want = _rollers_reference(cells_, passed, keys, counts)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert got[1].sum() == passed.sum()  # every rock that passed a cell is in its histogram
    held = np.isin(cells_, keys // N_BINS)
    drop = int(np.flatnonzero(held)[len(np.flatnonzero(held)) // 2])  # a cell with keys
    with pytest.raises(ValueError, match="no rock passed"):
        with_rollers(np.delete(cells_, drop), np.delete(passed, drop), keys, counts)


@pytest.mark.parametrize("right", [True, False])
def test_search_from_any_hint_is_searchsorted(right):
    rng = np.random.default_rng(3)
    values = np.cumsum(rng.integers(0, 3, 2000))  # repeated values included
    targets = rng.integers(-2, int(values[-1]) + 3, 500)
    hints = rng.integers(-5, values.size + 5, targets.size)
    want = np.searchsorted(values, targets, side="right" if right else "left")
    assert np.array_equal(cells.search_from(values, targets, hints, right), want)
