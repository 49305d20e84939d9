"""Trajectory tables of a run: the whole trajectory of one rock, and the kept sample of many."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tumble.rockfall import RockTrajectory
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.step.model import TRAJECTORY_COLUMNS


def trajectory_columns(traj: RockTrajectory) -> dict[str, np.ndarray]:
    """Columns of a single-rock trajectory file: time, position, orientation (w, x, y, z),
    velocity, angular velocity (body frame), energies, contact, slippage, friction, height, and
    the jump height (NaN in contact and during the fall from the release)."""
    columns = dict(
        zip(
            TRAJECTORY_COLUMNS,
            [traj.t, *traj.position.T, *traj.orientation.T, *traj.velocity.T, *traj.omega.T],
            strict=True,
        )
    )
    columns["kinetic_energy_J"] = traj.kinetic_energy()
    columns["translational_energy_J"] = traj.translational_energy()
    columns["rotational_energy_J"] = traj.rotational_energy()
    columns["potential_energy_J"] = traj.potential_energy()
    columns["in_contact"] = traj.in_contact.astype(np.int64)
    columns["n_contacts"] = traj.n_contacts
    columns["slippage_m"] = traj.slippage
    columns["mu"] = traj.mu
    columns["height_m"] = traj.height
    columns["jump_height_m"] = traj.jump_height()
    return columns


def write_parquet(path: Path, columns: dict[str, Any]) -> None:
    """Equal-length columns as one Parquet table (text columns as strings)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table({k: list(v) if v.dtype.kind == "U" else v for k, v in columns.items()}), path
    )


def trajectory_sample(ensemble: Ensemble, count: int, every: int) -> dict[str, np.ndarray]:
    """The trajectories of the first ``count`` rocks, every ``every`` steps, one table with a
    ``rock`` column, sorted by rock and time."""
    parts: dict[str, list[np.ndarray]] = {}
    for k in range(min(count, ensemble.n_rocks)):
        columns = trajectory_columns(ensemble.trajectory(k, save_every=every))
        columns = {"rock": np.full(columns["t"].shape, k, dtype=np.int64), **columns}
        for name, values in columns.items():
            parts.setdefault(name, []).append(values)
    return {name: np.concatenate(values) for name, values in parts.items()}
