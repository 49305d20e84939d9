"""visits.parquet (output.visits = true): one row per rock and DEM cell its centre passed, with
the rock's largest kinetic energy there.

Checked against an independent account of the same rocks: the run's kept trajectories with
every step (output.trajectories = all rocks, trajectory_every = 1; each rock simulated again by
itself), whose centres are put in their pixels and whose energies are maximised per cell here in
numpy; and against the run's own maps (passing_count, reach_probability)."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest
import rasterio

from tumble.io.run_folder import RunPaths
from tumble.pipeline import RockfallRun
from tumble.pipeline.visits import VISIT_COLUMNS, visit_grid, write_visits
from tumble.rockfall.ensemble.driver import VISIT_ARRAYS


def read_table(path):
    return pq.read_table(path).to_pydict()


def test_visits_are_the_cells_and_energies_of_the_kept_trajectories(visits_folder, kept_visits):
    """Every (rock, cell) of visits.parquet is a pixel that rock's centre was in after a step of
    its trajectory kept at every step, and the reverse; the energy of the row is the largest of
    those steps, to round-off (1e-9 relative)."""
    table = read_table(visits_folder.visits)
    expected = kept_visits
    assert len(expected) > 100
    got = {
        (r, c): e * 1e3
        for r, c, e in zip(table["rock"], table["cell"], table["kinetic_energy_kJ"], strict=True)
    }
    assert len(got) == len(table["rock"])  # one row per rock and cell
    assert set(got) == set(expected)
    keys = sorted(expected)
    np.testing.assert_allclose([got[k] for k in keys], [expected[k] for k in keys], rtol=1e-9)
    # the rows are sorted by rock, then cell; row, col are the GeoTIFF pixel of the cell
    assert list(zip(table["rock"], table["cell"], strict=True)) == sorted(got)
    grid = visit_grid(visits_folder.visits)
    cell = np.asarray(table["cell"])
    assert np.array_equal(table["row"], grid.ny - 1 - cell // grid.nx)
    assert np.array_equal(table["col"], cell % grid.nx)
    assert grid.n_rocks == 24 and "31254" in grid.crs


def test_rows_per_cell_are_the_reach_probability_times_the_rocks(visits_folder):
    """The rocks listed at each cell number passing_count there, and reach_probability *
    n_rocks (float32 raster: to 1e-6 of a rock); cells without a row are nodata."""
    table = read_table(visits_folder.visits)
    with rasterio.open(visits_folder.raster("passing_count")) as src:
        passing = src.read(1, masked=True)
    with rasterio.open(visits_folder.raster("reach_probability")) as src:
        probability = src.read(1, masked=True)
    rows, cols = np.asarray(table["row"]), np.asarray(table["col"])
    listed = np.zeros(passing.shape, dtype=np.int64)
    np.add.at(listed, (rows, cols), 1)
    assert np.array_equal(listed[~passing.mask], passing.data[~passing.mask])
    assert not listed[passing.mask].any()
    np.testing.assert_allclose(
        probability.data[~passing.mask] * 24, listed[~passing.mask], atol=1e-5
    )


def test_source_of_each_row_is_the_rocks_release_area(visits_folder):
    """The ``source`` of a row is the rock's release area in deposits.csv."""
    import csv

    with visits_folder.deposits.open() as f:
        source = {int(r["rock"]): r["source"] for r in csv.DictReader(f)}
    table = read_table(visits_folder.visits)
    assert {source[r] for r in table["rock"]} == {"south", "north"}
    assert all(source[r] == s for r, s in zip(table["rock"], table["source"], strict=True))
    schema = pq.read_schema(visits_folder.visits)
    assert schema.names == list(VISIT_COLUMNS)
    assert schema.field("kinetic_energy_kJ").metadata[b"unit"] == b"kJ"


def test_chunks_without_visits_are_simulated_again_to_the_same_table(
    visit_site, site_run, tmp_path
):
    """A chunk computed without its visits (a run resumed with output.visits turned on) is
    simulated again: the table equals the one from chunks that kept them, and the table does not
    depend on the chunk size."""
    run = site_run(visit_site)
    ensemble = run.ensemble
    setup = run.setup
    kept = [ensemble.run_chunk(a, b) for a, b in ensemble.chunks(7)]
    assert all(name in kept[0] for name in VISIT_ARRAYS)
    stripped = [{k: v for k, v in c.items() if k not in VISIT_ARRAYS} for c in kept]
    whole = [ensemble.run_chunk(0, 24)]
    args = (ensemble, setup.site.source_of, setup.site.source_names)
    a = write_visits(tmp_path / "a.parquet", kept, *args)
    b = write_visits(tmp_path / "b.parquet", stripped, *args)
    c = write_visits(tmp_path / "c.parquet", whole, *args)
    assert a["chunks_simulated_again"] == 0 and b["chunks_simulated_again"] == 4
    assert a["rows"] == b["rows"] == c["rows"] > 0
    first = read_table(tmp_path / "a.parquet")
    for other in ("b", "c"):
        table = read_table(tmp_path / f"{other}.parquet")
        for name in VISIT_COLUMNS:
            left, right = np.asarray(first[name]), np.asarray(table[name])
            assert np.array_equal(left, right, equal_nan=left.dtype.kind == "f"), name
    with pytest.raises(ValueError, match="rock order"):
        write_visits(tmp_path / "d.parquet", kept[::-1], *args)


def test_a_run_without_visits_keeps_no_visits(visit_site, site_run, tmp_path):
    """output.visits = false (the default): no visits.parquet, no summary record, and the chunks
    hold no visits."""
    run = RockfallRun.from_config(
        settings={**visit_site, "rocks": 24, "seed": 3, "t_max": 6.0},
        overrides=["output.figures=false"],
    )
    assert not run.ensemble.keep_visits
    assert not any(name in run.ensemble.run_chunk(0, 3) for name in VISIT_ARRAYS)
    outcome = run.run(tmp_path / "run")
    assert "visits" not in outcome.summary
    assert not RunPaths(tmp_path / "run").visits.exists()
