"""Per-cell exceedance counts per group (tumble.rockfall.ensemble.counts): the sparse keys and
counts of a hand-built set of visits, and the counts of chunks merged equal to the counts of the
whole run, exactly (integers)."""

import numpy as np

from tumble.rockfall.ensemble.counts import exceedance_counts, merge_counts


def hand_visits():
    """Four (rock, cell) visits of three rocks in two groups on a grid of 10 cells, with the
    levels None (every visit), 30 and 300 kJ; rock 2 has no energy in cell 5 (NaN)."""
    rock = np.array([0, 1, 2, 0])
    cell = np.array([5, 5, 5, 7])
    energy = np.array([10.0, 40.0, np.nan, 400.0])
    group = np.array([0, 1, 0])
    return rock, cell, energy, group, 2, 10, (None, 30.0, 300.0)


def test_exceedance_counts_by_hand():
    """key = (level n_groups + g) size + c. Level None counts every visit: cell 5 twice in group
    0 (rocks 0, 2; key 5), once in group 1 (key 15), cell 7 once in group 0 (key 7). Above 30 kJ:
    rock 1 in cell 5 (group 1, key (2 + 1) 10 + 5 = 35) and rock 0 in cell 7 (key 27); a NaN
    energy exceeds nothing. Above 300 kJ: rock 0 in cell 7 (key 4 10 + 7 = 47)."""
    counts = exceedance_counts(*hand_visits())
    assert counts["exceed_key"].tolist() == [5, 7, 15, 27, 35, 47]
    assert counts["exceed_count"].tolist() == [2, 1, 1, 1, 1, 1]
    assert counts["exceed_key"].dtype == counts["exceed_count"].dtype == np.int64


def test_merged_parts_equal_the_counts_of_all_visits():
    """The visits split in two parts (rock 0's two visits in different parts), counted apart and
    merged, give the counts of all visits; merging nothing gives empty integer arrays."""
    rock, cell, energy, group, n_groups, size, levels = hand_visits()
    whole = exceedance_counts(rock, cell, energy, group, n_groups, size, levels)
    parts = [
        exceedance_counts(rock[s], cell[s], energy[s], group, n_groups, size, levels)
        for s in (slice(0, 2), slice(2, 4))
    ]
    merged = merge_counts(parts)
    np.testing.assert_array_equal(merged["exceed_key"], whole["exceed_key"])
    np.testing.assert_array_equal(merged["exceed_count"], whole["exceed_count"])
    empty = merge_counts([])
    assert empty["exceed_key"].shape == empty["exceed_count"].shape == (0,)
    assert empty["exceed_count"].dtype == np.int64


def test_chunk_counts_add_up_to_the_counts_of_all_visits():
    """The zoning counts each chunk keeps, merged, equal the counts of every (rock, cell) visit
    of the run at once, for two chunkings: integers, so exactly."""
    from tumble.rockfall import Rock, Soil, Terrain
    from tumble.rockfall.ensemble import Ensemble
    from tumble.rockfall.ensemble.driver import ENSEMBLE_OPTIONS
    from tumble.rockfall.ensemble.record import Q_ENERGY
    from tumble.rockfall.hazard.zoning import ENERGY_LEVELS_KJ
    from tumble.rockfall.release import Release

    terrain = Terrain.scenario("slope40")
    states = Release.for_scenario("slope40").draw(terrain, 12, seed=3)
    source_of = np.arange(12) % 3
    ensemble = Ensemble(
        terrain,
        Rock.eota221(mass=780.0),
        Soil.preset("medium"),
        states,
        options=ENSEMBLE_OPTIONS.replace(t_max=6.0),
        count_groups=source_of,
        n_count_groups=3,
        count_levels_kJ=ENERGY_LEVELS_KJ,
    )
    rock, cell, maxima = ensemble.visits(0, 12)
    expected = exceedance_counts(
        rock, cell, maxima[:, Q_ENERGY] * 1e-3, source_of, 3, terrain.heights.size, ENERGY_LEVELS_KJ
    )
    assert expected["exceed_count"].sum() > 0
    for size in (5, 12):
        parts = [ensemble._run_chunk(a, b) for a, b in ensemble.chunks(size)]
        merged = merge_counts(parts)
        np.testing.assert_array_equal(merged["exceed_key"], expected["exceed_key"])
        np.testing.assert_array_equal(merged["exceed_count"], expected["exceed_count"])
