"""The Tschamut 2014 runs simulated on a soil category, and their metrics against the measured
stops (:mod:`tumble.validation.tschamut`: releases, soils, metrics)."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tumble import _check
from tumble.errors import DataError
from tumble.rockfall.clearance import Hulls, rock_clearances
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.outcomes import run_outcomes
from tumble.rockfall.release import ReleaseStates, rock_rng, uniform_quaternion
from tumble.rockfall.rock import Rock
from tumble.rockfall.site.soil_draws import uniform_soil_table
from tumble.rockfall.site.soil_uncertainty import check_mode, preset_set_index, soil_uniforms
from tumble.rockfall.soil import CATALOGUE, FIELDS, Soil
from tumble.rockfall.status import REGULAR, status_name
from tumble.rotation.quaternion import quat_to_matrix
from tumble.validation.authume.metrics import kolmogorov_smirnov
from tumble.validation.tschamut.data import (
    NATURAL_HULLS,
    SHAPES,
    TschamutData,
    horizontal_distance,
    reach_angle,
)

#: gap (m) between a released rock's lowest point and the terrain
RELEASE_CLEARANCE = 0.01
#: how a block is placed above its release point (:func:`releases`)
PLACEMENTS = ("clearance", "bounding", "recorded")
#: early stops: shares of rocks stopping within these horizontal distances (m) of their release
EARLY_STOP_DISTANCES = (10.0, 1.4)
#: simulated time per rock (s)
T_MAX = 60.0
#: rocks per chunk of the ensemble driver (progress is reported per chunk)
CHUNK_ROCKS = 64
SCHEMES = ("implicit", "explicit")
#: quantiles (%) of the energy-line angle reported besides the minimum
ANGLE_PERCENTILES = (1, 5, 50)


# ---------------------------------------------------------------------------------------------
# releases and runs


@dataclass(frozen=True, eq=False)
class CategoryRun:
    """Rocks of one soil category: ``run_index`` (n,) index of the run in the data, ``orientation``
    (n,) its number ``0 .. orientations - 1``; ``states`` the releases; ``stop`` (n, 3) final
    centre; ``status`` (n,) how each rock ended; ``t_end`` (n,) s; ``soil_set`` (n,) the drawn
    set (uncertainty ``"sets"``, else -1); ``drawn`` field -> each rock's value (uncertainty
    ``"category"``)."""

    category: str
    uncertainty: str
    shape: str
    scheme: str
    seed: int
    orientations: int
    run_index: np.ndarray
    orientation: np.ndarray
    states: ReleaseStates
    stop: np.ndarray
    status: tuple[str, ...]
    t_end: np.ndarray
    seconds: float
    soil_set: np.ndarray
    drawn: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.status)

    @property
    def label(self) -> str:
        """``category`` with its uncertainty mode and any non-default shape or scheme."""
        parts = [
            self.category if self.uncertainty == "none" else f"{self.category}:{self.uncertainty}"
        ]
        if self.shape != "box":
            parts.append(self.shape)
        if self.scheme != "implicit":
            parts.append(self.scheme)
        return " ".join(parts)

    @property
    def runout(self) -> np.ndarray:
        return horizontal_distance(self.states.position, self.stop)

    @property
    def reach_angle(self) -> np.ndarray:
        return reach_angle(self.states.position, self.stop)

    @property
    def regular(self) -> np.ndarray:
        names = {status_name(code) for code in REGULAR}
        return np.array([s in names for s in self.status], dtype=bool)


def releases(
    data: TschamutData,
    orientations: int,
    seed: int,
    shape: str = "box",
    placement: str = "clearance",
) -> tuple[ReleaseStates, np.ndarray, np.ndarray, tuple[Rock, ...], np.ndarray]:
    """The releases of every run ``orientations`` times (module docstring): the states, the run
    and orientation of each rock, the block shapes (one per block, in the order of
    ``data.blocks``) and each rock's shape index. ``placement`` (:data:`PLACEMENTS`):
    ``"clearance"``, the lowest point :data:`RELEASE_CLEARANCE` above the terrain; ``"bounding"``,
    the centre its bounding radius (the largest distance of a hull vertex) above the terrain
    below it, so that no orientation starts closer to the ground than another would (and at
    least at the clearance: on a slope the ground beside the centre is higher); ``"recorded"``,
    the centre its bounding radius above the files' ground height at the release point (the
    recorded centre height less the block's equivalent radius), which lies a median 0.48 m
    above the proxy terrain: a drop of up to about a metre (and at least the clearance)."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    orientations = _check.positive_int(orientations, "orientations")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    names = tuple(data.blocks)
    n = len(data) * orientations
    run_index = np.repeat(np.arange(len(data)), orientations)
    orientation = np.tile(np.arange(orientations), len(data))
    block_index = np.array([names.index(data.block_id[i]) for i in run_index], dtype=np.int64)
    if shape == "natural":
        # one rock per block and hull; orientation j of a run takes hull j mod NATURAL_HULLS
        per_block = len(NATURAL_HULLS)
        shapes = tuple(r for b in names for r in data.blocks[b].natural_rocks())
        shape_id = block_index * per_block + orientation % per_block
    else:
        shapes = tuple(data.blocks[b].rock(shape) for b in names)
        shape_id = block_index
    quaternion = np.array([uniform_quaternion(rock_rng(seed, k)) for k in range(n)])
    xy = data.release[run_index, :2]
    # the centre well above the terrain; then moved down to RELEASE_CLEARANCE (a vertical shift
    # changes the vertical gap by as much)
    high = data.terrain.height(xy[:, 0], xy[:, 1]) + max(
        2.0 * Hulls.of(s).radius(0) for s in shapes
    )
    centre = np.column_stack([xy, high])
    hulls = Hulls.of(shapes, shape_id)
    gap, on_terrain = rock_clearances(data.terrain, hulls, 0, centre, quat_to_matrix(quaternion))
    if not on_terrain.all():
        k = int(np.argmin(on_terrain))
        raise DataError(
            f"the block of run {data.run_id[run_index[k]]} reaches off the terrain at its release"
        )
    centre[:, 2] -= gap - RELEASE_CLEARANCE
    if placement != "clearance":
        bounding = np.array([Hulls.of(s).radius(0) for s in shapes])[shape_id]
        if placement == "bounding":
            ground = data.terrain.height(xy[:, 0], xy[:, 1])
        else:
            radius = np.array([data.blocks[b].radius for b in data.block_id])[run_index]
            ground = data.release[run_index, 2] - radius
        centre[:, 2] = np.maximum(centre[:, 2], ground + bounding)
    states = ReleaseStates(centre, quaternion, data.velocity[run_index], np.zeros((n, 3)))
    return states, run_index, orientation, shapes, shape_id


def _soils(
    category: str, uncertainty: str, seed: int, n: int
) -> tuple[Soil, dict[str, Any], np.ndarray, dict[str, np.ndarray]]:
    """The soil of a category, the per-rock soil table of its uncertainty (keywords of
    :class:`Ensemble`, :func:`tumble.rockfall.site.soil_draws.uniform_soil_table` as a run with
    ``soil.uncertainty`` builds it), each rock's set (-1 without) and its drawn fields."""
    soil = Soil.preset(category)
    preset = CATALOGUE[category]
    check_mode(preset, category, uncertainty)
    no_set = np.full(n, -1, dtype=np.int64)
    if uncertainty == "none":
        return soil, {}, no_set, {}
    soils, row, values = uniform_soil_table(category, uncertainty, seed, n)
    table = {"soils": list(soils), "soil_row": row}
    if uncertainty == "sets":
        return soil, table, preset_set_index(preset, soil_uniforms(seed, n)[:, 0]), {}
    drawn = {name: values[:, FIELDS.index(name)] for name in preset.spread}
    return soil, table, no_set, drawn


def run_category(
    data: TschamutData,
    category: str,
    uncertainty: str = "none",
    orientations: int = 16,
    seed: int = 0,
    scheme: str = "implicit",
    shape: str = "box",
    t_max: float = T_MAX,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    placement: str = "clearance",
) -> CategoryRun:
    """Simulate every run ``orientations`` times on the soil ``category`` (module docstring).
    ``progress(done)`` is called after each chunk with the rocks finished so far. The result does
    not depend on ``workers``."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}, got {shape!r}")
    t_max = float(t_max)
    if not (math.isfinite(t_max) and t_max > 0.0):
        raise ValueError(f"t_max must be positive, got {t_max!r}")
    workers = _check.positive_int(workers, "workers")
    start = time.perf_counter()
    states, run_index, orientation, shapes, shape_id = releases(
        data, orientations, seed, shape, placement
    )
    n = len(states)
    soil, table, soil_set, drawn = _soils(category, uncertainty, seed, n)
    ensemble = Ensemble(
        data.terrain,
        shapes,
        soil,
        states,
        shape_id=shape_id,
        seed=seed,
        scheme=scheme,
        t_max=t_max,
        **table,
    )
    out = run_outcomes(
        ensemble, CHUNK_ROCKS, workers, None if progress is None else lambda lo, hi: progress(hi)
    )
    codes, steps, stop = out["status"], out["steps"], out["stop"]
    return CategoryRun(
        category=category,
        uncertainty=uncertainty,
        shape=shape,
        scheme=scheme,
        seed=int(seed),
        orientations=int(orientations),
        run_index=run_index,
        orientation=orientation,
        states=states,
        stop=stop,
        status=tuple(status_name(int(c)) for c in codes),
        t_end=steps * ensemble.options.dt,
        seconds=time.perf_counter() - start,
        soil_set=soil_set,
        drawn=drawn,
    )


# ---------------------------------------------------------------------------------------------
# metrics


def angle_summary(angles: np.ndarray) -> dict[str, float]:
    """Minimum and the :data:`ANGLE_PERCENTILES` of energy-line angles (degrees)."""
    angles = np.asarray(angles, dtype=np.float64)
    out = {"min_deg": float(angles.min())}
    for p in ANGLE_PERCENTILES:
        out[f"p{p}_deg" if p != 50 else "median_deg"] = float(np.percentile(angles, p))
    return out


def measured_metrics(data: TschamutData) -> dict[str, Any]:
    """The measured run-outs and energy-line angles, and how many ran less than 40 m."""
    runout = data.runout
    return {
        "runs": len(data),
        "median_runout_m": float(np.median(runout)),
        "min_runout_m": float(runout.min()),
        "runout_percentiles_m": {
            f"p{p}": float(np.percentile(runout, p)) for p in (1, 5, 25, 75, 95)
        },
        "runs_below_40_m": int(np.count_nonzero(runout < 40.0)),
        "reach_angle": angle_summary(data.reach_angle),
        "blocks": {
            b: {
                "name": blk.name,
                "mass_kg": blk.mass,
                "size_m": list(blk.size),
                "box_density_kg_m3": blk.box_density,
                "runs": int(sum(1 for x in data.block_id if x == b)),
            }
            for b, blk in data.blocks.items()
        },
        "terrain_minus_ground_z_m": data.ground_check,
    }


def category_metrics(run: CategoryRun, data: TschamutData) -> dict[str, Any]:
    """Simulated against measured run-out of one category's run (module docstring)."""
    measured = data.runout
    regular = run.regular
    runout = run.runout
    counts = Counter(run.status)
    stopped = np.array([s == "stopped" for s in run.status])
    out: dict[str, Any] = {
        "category": run.category,
        "uncertainty": run.uncertainty,
        "shape": run.shape,
        "scheme": run.scheme,
        "rocks": len(run),
        "status_counts": dict(sorted(counts.items())),
        "left_terrain": int(counts.get("left_domain", 0)),
        "timed_out": int(counts.get("timed_out", 0)),
        "failed": int(np.count_nonzero(~regular)),
        "median_runout_measured_m": float(np.median(measured)),
        "seconds": run.seconds,
    }
    if not regular.any():
        out.update(median_runout_simulated_m=None, runout_ratio=None, ks_statistic=None)
        return out
    sim = runout[regular]
    median = float(np.median(sim))
    ks_d, ks_p = kolmogorov_smirnov(measured, sim)
    out.update(
        median_runout_simulated_m=median,
        runout_ratio=median / float(np.median(measured)),
        ks_statistic=ks_d,
        ks_pvalue=ks_p,
        runout_percentiles_simulated_m={
            f"p{p}": float(np.percentile(sim, p)) for p in (1, 5, 25, 75, 95)
        },
        reach_angle=angle_summary(run.reach_angle[regular]),
    )
    for d in EARLY_STOP_DISTANCES:
        out[f"stopped_within_{d:g}_m"] = float(np.mean(stopped & (runout < d)))
    per_block = {}
    blocks = np.array(data.block_id)[run.run_index]
    for b in data.blocks:
        mine = regular & (blocks == b)
        there = np.array(data.block_id) == b
        if mine.any() and there.any():
            per_block[b] = float(np.median(runout[mine]) / np.median(measured[there]))
    out["runout_ratio_per_block"] = per_block
    return out


def stop_columns(run: CategoryRun, data: TschamutData) -> dict[str, np.ndarray]:
    """One row per simulated rock, for the stop table."""
    n = len(run)
    return {
        "soil": np.full(n, run.label),
        "rock": np.arange(n),
        "trajectory_id": np.array(data.run_id)[run.run_index],
        "orientation": run.orientation,
        "block_id": np.array(data.block_id)[run.run_index],
        "mass_kg": data.mass[run.run_index],
        "soil_set": run.soil_set,
        "status": np.array(run.status),
        "t_end_s": run.t_end,
        "release_x_m": run.states.position[:, 0],
        "release_y_m": run.states.position[:, 1],
        "release_z_m": run.states.position[:, 2],
        "x_m": run.stop[:, 0],
        "y_m": run.stop[:, 1],
        "z_m": run.stop[:, 2],
        "runout_m": run.runout,
        "reach_angle_deg": run.reach_angle,
    }
