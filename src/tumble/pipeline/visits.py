"""``visits.parquet``: which rock passed which DEM cell, and with what energy (``[output] visits =
true``).

One row per rock and DEM cell its centre of mass was in after some step (the cells that make the
run's ``passing_count``, so a cell has ``reach_probability * n_rocks`` rows), sorted by rock and
then cell, in the columns of :data:`VISIT_COLUMNS`: the rock's maxima while it was in the cell
(kinetic energy, speed, rotation rate, jump height), its energy-line angle there and its release
area. ``cell`` is the index ``j nx + i`` of the DEM sample (``j`` counted from the south);
``row``, ``col`` are the same pixel of the run's GeoTIFFs (row 0 north), so that
``rasters/reach_probability.tif`` read at ``(row, col)`` is the share of the run's rocks listed
there. The schema's metadata (key ``tumble``) holds the grid (``nx``, ``ny``, ``x0``, ``y0``,
``dx``, ``dy``), ``n_rocks`` and the CRS; every column its description and unit.

How it is made, and why so. The engine reduces each chunk's visits to per-cell counts, maxima
and histograms and drops them (a chunk's file grows with the cells its rocks touched, not with
their visits); an ensemble built with ``keep_visits`` also keeps the chunk's merged visits (the
rows :meth:`~tumble.rockfall.ensemble.Ensemble.visits` returns, already computed for the
reductions: no extra simulation), and :func:`write_visits` streams them from the chunk files,
one chunk at a time in rock order, one Parquet row group per chunk, so the run's memory does not
grow with the visits and the order does not depend on threads, chunking or Dask. A chunk computed
without them (a run resumed with ``output.visits`` turned on after it was interrupted) is
simulated again for its visits: a rock alone gives the numbers it gave in the ensemble, bit for
bit. Re-simulating the rocks of the sources that reach a place at query time instead would need
the compiled ensemble (terrain, soils, forest, barriers, every rock's drawn state), which the run
folder does not hold and which cannot be compiled again from input files that may have changed
or gone; the table is written while the ensemble is at hand.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tumble.errors import DataError
from tumble.rockfall.ensemble.driver import VISIT_ARRAYS, Ensemble
from tumble.rockfall.ensemble.record import Q_ENERGY, Q_JUMP, Q_ROTATION, Q_SPEED

#: the columns of ``visits.parquet``: name -> (description, unit)
VISIT_COLUMNS: dict[str, tuple[str, str]] = {
    "rock": ("index of the rock in the run (deposits.csv)", "1"),
    "source": ("release area of the rock", ""),
    "cell": ("DEM sample j nx + i of the cell, j counted from the south", "1"),
    "row": ("row of the cell in the run's GeoTIFFs (0 north)", "1"),
    "col": ("column of the cell in the run's GeoTIFFs (0 west)", "1"),
    "kinetic_energy_kJ": ("largest kinetic energy of the rock in the cell", "kJ"),
    "velocity_ms": ("largest speed of the rock's centre in the cell", "m/s"),
    "rotational_velocity_rps": ("largest rotation rate of the rock in the cell", "rev/s"),
    "jump_height_m": ("largest height of the centre above the terrain in flight (NaN: none)", "m"),
    "energy_line_angle_deg": ("energy-line angle from the release to the cell", "degree"),
}
#: the schema metadata key of the grid and the run
META_KEY = b"tumble"


@dataclass(frozen=True)
class VisitGrid:
    """The DEM grid of a visits table: ``nx``, ``ny`` samples from ``(x0, y0)`` by
    ``(dx, dy)`` (pixel centres, ``y`` growing with ``j``), ``n_rocks`` of the run."""

    nx: int
    ny: int
    x0: float
    y0: float
    dx: float
    dy: float
    n_rocks: int
    crs: str | None = None


def _schema(grid: VisitGrid) -> Any:
    import pyarrow as pa

    types = {
        "rock": pa.int64(),
        "source": pa.dictionary(pa.int32(), pa.string()),
        "cell": pa.int64(),
        "row": pa.int32(),
        "col": pa.int32(),
    }
    fields = [
        pa.field(
            name,
            types.get(name, pa.float64()),
            nullable=name == "jump_height_m",
            metadata={b"description": text.encode(), b"unit": unit.encode()},
        )
        for name, (text, unit) in VISIT_COLUMNS.items()
    ]
    meta = json.dumps(grid.__dict__).encode()
    return pa.schema(fields, metadata={META_KEY: meta})


def chunk_visits(chunk: Mapping[str, np.ndarray], ensemble: Ensemble) -> tuple[np.ndarray, ...]:
    """``(rock, cell, maxima, angle)`` of a chunk's rocks (:data:`VISIT_ARRAYS`): those it
    holds, or, for a chunk computed without them, those of its rocks simulated again."""
    if all(name in chunk for name in VISIT_ARRAYS):
        return tuple(np.asarray(chunk[name]) for name in VISIT_ARRAYS)
    rock = np.asarray(chunk["rock"], dtype=np.int64)
    visit_rock, visit_cell, visit_max = ensemble.visits(int(rock[0]), int(rock[-1]) + 1)
    return visit_rock, visit_cell, visit_max, ensemble.visit_angles(visit_rock, visit_cell)


def write_visits(
    path: str | os.PathLike,
    chunks: Iterable[Mapping[str, np.ndarray]],
    ensemble: Ensemble,
    source_of: np.ndarray,
    source_names: Sequence[str],
) -> dict[str, Any]:
    """Write ``visits.parquet`` (module docstring) from the run's ``chunks`` in rock order
    (read one at a time); ``source_of`` the release area of each rock (an index into
    ``source_names``). Returns ``summary.json["visits"]``: the file, its rows and the chunks
    whose visits were simulated again."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = ensemble.terrain
    ny, nx = t.heights.shape
    crs = t.crs.to_wkt() if getattr(t, "crs", None) is not None else None
    grid = VisitGrid(
        nx, ny, float(t.x0), float(t.y0), float(t.dx), float(t.dy), ensemble.n_rocks, crs
    )
    schema = _schema(grid)
    names = pa.array([str(s) for s in source_names], type=pa.string())
    source_of = np.asarray(source_of, dtype=np.int32)
    rows = 0
    simulated = 0
    expected = 0
    with pq.ParquetWriter(Path(path), schema) as writer:
        for chunk in chunks:
            rock = np.asarray(chunk["rock"], dtype=np.int64)
            if rock.size == 0:
                continue
            if int(rock[0]) != expected:
                raise ValueError(f"the chunks are not in rock order: rock {expected} expected")
            expected = int(rock[-1]) + 1
            simulated += not all(name in chunk for name in VISIT_ARRAYS)
            visit_rock, cell, maxima, angle = chunk_visits(chunk, ensemble)
            cell = np.asarray(cell, dtype=np.int64)
            columns = {
                "rock": pa.array(visit_rock, type=pa.int64()),
                "source": pa.DictionaryArray.from_arrays(
                    pa.array(source_of[visit_rock], type=pa.int32()), names
                ),
                "cell": pa.array(cell),
                "row": pa.array((ny - 1 - cell // nx).astype(np.int32)),
                "col": pa.array((cell % nx).astype(np.int32)),
                "kinetic_energy_kJ": pa.array(maxima[:, Q_ENERGY] * 1e-3),
                "velocity_ms": pa.array(maxima[:, Q_SPEED]),
                "rotational_velocity_rps": pa.array(maxima[:, Q_ROTATION]),
                "jump_height_m": pa.array(maxima[:, Q_JUMP]),
                "energy_line_angle_deg": pa.array(np.asarray(angle, dtype=np.float64)),
            }
            writer.write_table(pa.table(columns, schema=schema))
            rows += cell.size
    if expected != ensemble.n_rocks:
        raise ValueError(f"the chunks hold {expected} of the {ensemble.n_rocks} rocks")
    return {"file": Path(path).name, "rows": rows, "chunks_simulated_again": simulated}


def visit_grid(path: str | os.PathLike) -> VisitGrid:
    """The grid and run size of a visits table."""
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(Path(path)).metadata or {}
        return VisitGrid(**json.loads(meta[META_KEY]))
    except (OSError, KeyError, ValueError, TypeError) as err:
        raise DataError(f"{path} is not a visits table of a run ({err})") from None


def read_visits(path: str | os.PathLike, cells: np.ndarray) -> dict[str, np.ndarray]:
    """The rows of the visits table whose ``cell`` is one of ``cells``, in the file's order (by
    rock, then cell), as numpy columns (``source`` as strings); read row group by row group."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    wanted = pa.array(np.unique(np.asarray(cells, dtype=np.int64)))
    parts = []
    with pq.ParquetFile(Path(path)) as source:
        index = source.schema_arrow.get_field_index("cell")
        for group in range(source.num_row_groups):
            stats = source.metadata.row_group(group).column(index).statistics
            outside = (
                stats is not None
                and stats.has_min_max
                and len(wanted) > 0
                and (stats.max < wanted[0].as_py() or stats.min > wanted[-1].as_py())
            )
            if outside:
                continue
            table = source.read_row_group(group)
            parts.append(table.filter(pc.is_in(table["cell"], value_set=wanted)))
        schema = source.schema_arrow
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    out = {}
    for name in VISIT_COLUMNS:
        column = table[name]
        if name == "source":
            out[name] = np.asarray(column.cast(pa.string()).to_pylist(), dtype=object)
        else:
            out[name] = column.to_numpy()
    return out
