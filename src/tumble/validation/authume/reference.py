"""The discrete element simulations published with the Authume data, scored like tumble's runs.

The data set of Garcia et al. 2022 also holds 2048 trajectories computed with their discrete
element code Rockable: the four photogrammetric blocks (SP1A, SP2A, SP2B, SP3A, as meshes, not
convex hulls) released from the four drop points of each profile in each of the 64 given
orientations, on the three terrain meshes themselves, for 19 s sampled every 0.1 s. The data set
states neither their contact parameters nor how they were chosen. Their end points are a
reference for what a state-of-the-art model with the real shapes and the unrasterised terrain
gives on the same field data: :func:`reference_metrics` scores them against the measured stop
points with the metrics of tumble's own runs (:func:`~tumble.validation.authume.metrics.
profile_metrics`).

The end points are kept in ``SIM_endpoints/rockable_endpoints.csv`` of the data directory, one
row per trajectory: ``profile, shape, drop_position, orientation`` (1-based, as the file names),
``t_s`` (time of the last sample), ``x_m, y_m, z_m`` (the last position, in the data's frame,
y up, as in the trajectory files) and ``speed_m_s`` (the last speed). The table is derived from
the trajectory files by :func:`extract_reference_endpoints` (the last line of each file).

A trajectory whose last speed exceeds :data:`MOVING_SPEED` had not come to rest when the
simulation ended; its last position counts as its stop point (a lower bound of its run-out, as
tumble counts a rock that leaves the DEM) and the number of such rows is reported
(``n_moving``).

Reference: B. Garcia, P. Villard, V. Richefeu, D. Daudon, Comparison of full-scale rockfall
tests with 3D complex-shaped discrete element simulations, Eng. Geol. 310 (2022) 106855; data
repository github.com/richefeu/AuthumeQuarryRockfalls_Data-in-Brief (``SIM_Trajectories/``).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tumble.io.results import write_atomic
from tumble.validation.authume import data
from tumble.validation.authume.metrics import (
    ENVELOPE_BANDWIDTH,
    ENVELOPE_CONTENT,
    sample_metrics,
)

#: The end-point table inside the data directory.
REFERENCE_FILE = Path("SIM_endpoints") / "rockable_endpoints.csv"
#: Its columns, in order.
REFERENCE_COLUMNS = (
    "profile",
    "shape",
    "drop_position",
    "orientation",
    "t_s",
    "x_m",
    "y_m",
    "z_m",
    "speed_m_s",
)
#: A trajectory whose last speed exceeds this (m/s) had not stopped when it ended.
MOVING_SPEED = 0.05
#: The name under which the reference appears in metrics and tables.
REFERENCE_NAME = "rockable"


class ReferenceEndpoints(NamedTuple):
    """End points of the published discrete element trajectories of one profile: ``shape``
    (n,) block names, ``drop`` and ``orientation`` (n,) 1-based indices, ``position`` (n, 3) in
    tumble's frame (m), ``speed`` (n,) the last speed (m/s), ``time`` (n,) the last time (s)."""

    shape: np.ndarray
    drop: np.ndarray
    orientation: np.ndarray
    position: np.ndarray
    speed: np.ndarray
    time: np.ndarray

    @property
    def moving(self) -> np.ndarray:
        """Rows that had not come to rest when the trajectory ended."""
        return self.speed > MOVING_SPEED


def reference_file(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where the end-point table lives in the data directory (it may be absent)."""
    return data.data_directory(data_dir) / REFERENCE_FILE


def reference_endpoints(
    profile: str | int, data_dir: str | os.PathLike[str] | None = None
) -> ReferenceEndpoints | None:
    """The published trajectories' end points of a profile, or None when the data directory
    has no end-point table; ValueError if the table is malformed."""
    key = data._profile(profile)
    path = reference_file(data_dir)
    if not path.is_file():
        return None
    with open(path, newline="") as handle:
        reader = csv.reader(handle)
        header = tuple(next(reader, ()))
        if header != REFERENCE_COLUMNS:
            raise ValueError(f"{path.name}: expected the columns {', '.join(REFERENCE_COLUMNS)}")
        rows = [row for row in reader if row and row[0].lower() == key]
    if not rows:
        raise ValueError(f"{path.name}: no rows for profile {key.upper()}")
    try:
        numbers = np.array([[float(v) for v in row[2:]] for row in rows], dtype=np.float64)
    except (ValueError, IndexError):
        raise ValueError(f"{path.name}: rows must hold 9 fields, the last 7 numbers") from None
    if numbers.shape[1] != 7 or not np.isfinite(numbers).all():
        raise ValueError(f"{path.name}: rows must hold 9 fields, the last 7 finite numbers")
    shape = np.array([row[1] for row in rows])
    unknown = sorted(set(shape) - set(data.BLOCK_NAMES))
    if unknown:
        raise ValueError(f"{path.name}: unknown block shapes {unknown}")
    if (numbers[:, 6] < 0).any():
        raise ValueError(f"{path.name}: negative speeds")
    return ReferenceEndpoints(
        shape,
        numbers[:, 0].astype(np.int64),
        numbers[:, 1].astype(np.int64),
        data.to_tumble_frame(numbers[:, 3:6]),
        numbers[:, 6].copy(),
        numbers[:, 2].copy(),
    )


def extract_reference_endpoints(trajectories: str | os.PathLike[str], out: Path) -> int:
    """Write the end-point table ``out`` from the folder ``SIM_Trajectories`` of the data
    repository (``P1|P2/<shape>/Drop_position_<d>/orientation_<k>.txt``); returns the number of
    rows. The table is written whole or not at all."""
    root = Path(trajectories)
    files = sorted(root.glob("P[12]/*/Drop_position_*/orientation_*.txt"))
    if not files:
        raise ValueError(f"{str(root)!r} holds no P1|P2/<shape>/Drop_position_*/ trajectories")
    rows = []
    for path in files:
        profile, shape, drop = path.parts[-4:-1]
        table = np.loadtxt(path, ndmin=2)
        if table.shape[1] < 7 or not np.isfinite(table[-1, :7]).all():
            raise ValueError(f"{path}: not a trajectory (time, position, velocity, ...)")
        last = table[-1]
        rows.append(
            (
                profile.lower(),
                shape,
                int(drop.rsplit("_", 1)[1]),
                int(path.stem.rsplit("_", 1)[1]),
                *(float(v) for v in last[:4]),
                float(np.linalg.norm(last[4:7])),
            )
        )
    rows.sort(key=lambda row: row[:4])

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(REFERENCE_COLUMNS)
            for row in rows:
                writer.writerow([*row[:4], *(format(v, ".6g") for v in row[4:])])

    write_atomic(Path(out), write)
    return len(rows)


def reference_metrics(
    profile: str | int,
    measured: data.MeasuredEndpoints,
    data_dir: str | os.PathLike[str] | None = None,
    content: float = ENVELOPE_CONTENT,
    bandwidth: float = ENVELOPE_BANDWIDTH,
    reference: ReferenceEndpoints | None = None,
) -> dict[str, Any] | None:
    """The published trajectories' end points of a profile against the measured stop points,
    with the metrics of :func:`~tumble.validation.authume.metrics.profile_metrics` (all shapes,
    drop points and orientations, equally weighted); None without an end-point table.
    ``reference``: the profile's end points when already read (else they are read here)."""
    if reference is None:
        reference = reference_endpoints(profile, data_dir)
    if reference is None:
        return None
    metrics = sample_metrics(profile, reference.position, measured, data_dir, content, bandwidth)
    return {
        "model": "Rockable discrete element trajectories published with the data set "
        "(Garcia et al. 2022); real block meshes on the terrain meshes, contact parameters "
        "not given with the data",
        **metrics,
        "n_simulated": int(reference.position.shape[0]),
        "n_moving": int(reference.moving.sum()),
        "moving_speed_m_s": MOVING_SPEED,
        "t_end_s": float(reference.time.max()),
    }
