"""The layout of a rockfall run's result folder, defined once: every file name a run writes and
every reader opens (the command line, the report, the 3D view, the barrier replay, comparisons).

::

    summary.json              statistics; written last, its presence marks a finished run
    provenance.json           version, resolved configuration, seed, inputs, timings
    report.html               the run's report
    deposits.csv              one row per rock: final point, status, maxima, source, class
    deposits.gpkg             the same as points in the DEM's CRS
    exits.gpkg                where rocks left the DEM, as points in its CRS: rock, source,
                              kind (downslope_edge, side_edge, nodata_hole), energy, speed
    trajectories.parquet      the kept trajectories (output.trajectories rocks), one row a sample
    trajectories.gpkg         the same as lines
    trajectory.csv, .parquet  a one-rock run: its whole trajectory, every step
    crossings.parquet         one row per barrier crossing (runs with barriers)
    visits.parquet            with output.visits: one row per rock and DEM cell its centre
                              passed, with its energy there (tumble.pipeline.visits)
    geometry.json             what readers draw or replay without the configuration: the rock
                              hulls per class, the kept rocks' bodies, barrier lines, release areas
    reach_outlines.gpkg       one polygon per release area around the cells its rocks reached
    rasters/NAME.tif          hazard rasters on the DEM's grid (with their 95 % intervals,
                              converged.tif, energy_line_angle.tif, source_count.tif), and
                              rasters/dem.tif
    figures/NAME.png          figures
    chunks/                   chunk files while the run is unfinished (--resume)

A comparison of two runs (``tumble rockfall compare A B --out C``, :mod:`tumble.pipeline.compare`)
writes the same names where they mean the same: ``summary.json`` (with ``differences``),
``report.html``, ``figures/``, and ``rasters/delta_NAME.tif`` (B minus A of ``rasters/NAME.tif``,
:data:`DELTA_PREFIX`), beside ``compare.csv``, ``compare.json``, ``compare.md`` and
``envelopes.png``.

:class:`RunPaths` names the paths of one folder; the constants are the names themselves.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SUMMARY = "summary.json"
PROVENANCE = "provenance.json"
REPORT = "report.html"
DEPOSITS_CSV = "deposits.csv"
DEPOSITS_GPKG = "deposits.gpkg"
EXITS_GPKG = "exits.gpkg"
TRAJECTORIES_PARQUET = "trajectories.parquet"
TRAJECTORIES_GPKG = "trajectories.gpkg"
TRAJECTORY_CSV = "trajectory.csv"
TRAJECTORY_PARQUET = "trajectory.parquet"
CROSSINGS_PARQUET = "crossings.parquet"
VISITS_PARQUET = "visits.parquet"
GEOMETRY = "geometry.json"
REACH_OUTLINES_GPKG = "reach_outlines.gpkg"
RASTERS = "rasters"
FIGURES = "figures"
CHUNKS = "chunks"
DEM = "dem.tif"
#: the file of the chunk folder that records how the run was split
MANIFEST = "manifest.json"
#: the version of geometry.json this code writes and reads (tumble.pipeline.geometry)
GEOMETRY_VERSION = 1
#: what a finished barrier replay writes into its own folder
BARRIERS_JSON = "barriers.json"
#: the prefix of a comparison's difference rasters: ``rasters/delta_NAME.tif``
DELTA_PREFIX = "delta_"


@dataclass(frozen=True)
class RunPaths:
    """The paths of the run folder ``path`` (module docstring)."""

    path: Path

    def __init__(self, path: str | os.PathLike) -> None:
        object.__setattr__(self, "path", Path(path))

    @property
    def summary(self) -> Path:
        return self.path / SUMMARY

    @property
    def provenance(self) -> Path:
        return self.path / PROVENANCE

    @property
    def report(self) -> Path:
        return self.path / REPORT

    @property
    def deposits(self) -> Path:
        return self.path / DEPOSITS_CSV

    @property
    def trajectories(self) -> Path:
        return self.path / TRAJECTORIES_PARQUET

    @property
    def crossings(self) -> Path:
        return self.path / CROSSINGS_PARQUET

    @property
    def visits(self) -> Path:
        return self.path / VISITS_PARQUET

    @property
    def geometry(self) -> Path:
        return self.path / GEOMETRY

    @property
    def rasters(self) -> Path:
        return self.path / RASTERS

    @property
    def dem(self) -> Path:
        return self.path / RASTERS / DEM

    @property
    def figures(self) -> Path:
        return self.path / FIGURES

    @property
    def chunks(self) -> Path:
        return self.path / CHUNKS

    def raster(self, name: str) -> Path:
        """``rasters/NAME.tif``."""
        return self.path / RASTERS / f"{name}.tif"

    @property
    def finished(self) -> bool:
        """Whether the folder holds a finished run (its ``summary.json``)."""
        return self.summary.is_file()

    def read_json(self, which: Path) -> dict[str, Any]:
        """A JSON file of the folder as a dict; ValueError naming it when it is missing or not
        JSON."""
        try:
            data = json.loads(which.read_text())
        except (OSError, ValueError) as err:
            raise ValueError(f"{which} cannot be read: {err}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{which} does not hold a JSON object")
        return data

    def read_geometry(self) -> dict[str, Any]:
        """``geometry.json`` checked (:func:`check_geometry`)."""
        return check_geometry(self.read_json(self.geometry), str(self.geometry))


def check_geometry(record: Any, where: str) -> dict[str, Any]:
    """``record`` if it is a geometry record this version reads; ValueError naming ``where``."""
    if not isinstance(record, dict) or record.get("version") != GEOMETRY_VERSION:
        raise ValueError(
            f"{where} is not a geometry record this version of tumble reads "
            f"(version {GEOMETRY_VERSION}); run the simulation again with this version"
        )
    for key in ("shapes", "rocks", "barriers", "release"):
        if key not in record:
            raise ValueError(f"{where} has no {key!r}")
    return record


def shape_of(record: dict[str, Any], rock: int = 0) -> dict[str, Any]:
    """The hull of ``rock`` (a kept rock) for drawing: name, mass, principal moments, the hull's
    vertices (m, principal frame) and outward triangles."""
    rocks = record["rocks"]
    try:
        at = list(rocks["rock"]).index(int(rock))
    except ValueError:
        raise ValueError(f"rock {rock} is not among the rocks the run kept") from None
    shape = record["shapes"][int(rocks["shape_id"][at])]
    scale = float(rocks["scale"][at])
    vertices = np.asarray(shape["vertices"], dtype=np.float64) * scale
    return {
        "name": shape["name"],
        "mass_kg": float(rocks["mass_kg"][at]),
        "inertia_kg_m2": [float(v) for v in rocks["inertia_kg_m2"][at]],
        "vertices": vertices[np.asarray(shape["hull_vertices"], dtype=np.int64)].tolist(),
        "faces": shape["faces"],
    }
