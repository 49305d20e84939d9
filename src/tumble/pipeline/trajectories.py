"""Trajectory tables of a run: the whole trajectory of one rock, and the kept sample of many.

Which rocks are kept (:func:`choose_rocks`). ``output.trajectories`` rocks, a sample stratified
over the groups (release area, rock class) of the run's rocks (:class:`~tumble.rockfall.hazard.
sources.Site`): each non-empty group gets one rock when the count allows it, and the rest is
split over the groups in proportion to their sizes (less the one, largest-remainder rule); with
fewer rocks than groups, the whole count is split in proportion to the sizes. Rock 0 is always
kept (the profile figure and the 3D view's hull are rock 0's): it counts towards its group,
which is given one rock (from the largest allocation) if the split left it none. Within a group
the rocks are drawn without replacement from the stream
``default_rng(SeedSequence(seed, spawn_key=(SAMPLE_STREAM,)))``, a child of the run's seed that
no rock has, so the sample depends on the seed and the groups, never on chunks or threads. The
rocks of a group are exchangeable (each draws its start, class and volume from its own stream),
so the kept rocks of a group are a simple random sample of it. A statistic over the kept rocks
weighs them equally: the sample is proportional up to the rounding and the one-per-group
minimum, and ``summary.json["trajectories"]["groups"]`` gives the counts to re-weight by.

What is kept of a rock (:func:`replay_sample`). The rock is simulated again with every step saved
(:meth:`Ensemble.trajectory` with ``save_every=1``: the same numbers as in the ensemble), one
rock at a time, and of its steps are kept

* every ``output.trajectory_every``-th step and the final state (what ``save_every`` keeps);
* the states before and after every step whose centre-of-mass path crosses a barrier line of
  the run (:func:`tumble.rockfall.ensemble.replay.crossing_steps`, the crossing test of the
  step), so the replay interpolates inside the very step the run interpolated in;
* at every crossing where a net acted (caught the rock or let it break through, which changes the
  state after the step, :mod:`tumble.rockfall.step.nets`, so that the step's two ends no longer
  give the crossing), two *crossing samples*: the state at the crossing as the run recorded it
  (centre of mass, velocity, angular velocity and height; the orientation, contact and friction
  of the step's end, as the run's top height uses them), at the crossing's time and one unit in
  the last place before it, the point moved back and onward along the path by a few
  nanometres (:func:`tumble.rockfall.ensemble.replay.crossing_points`) so that the path between
  them crosses the line by the same test. Interpolating between two samples of equal velocity,
  angular velocity and height gives these back exactly, at any speed of the rock.

So the barrier replay of a run's own barriers (:func:`tumble.pipeline.replay_barriers`) gives the
crossings the run recorded for the kept rocks, equal to round-off (1e-9 relative), whatever
``trajectory_every``; :func:`replay_mismatches` checks it when the run writes its folder.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tumble.rockfall import RockTrajectory
from tumble.rockfall.barriers import Barrier
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.crossings import COLUMNS as CROSSING_COLUMNS
from tumble.rockfall.ensemble.crossings import directions_from_starts
from tumble.rockfall.ensemble.replay import crossing_points, crossing_steps, replay_crossings
from tumble.rockfall.hazard.sources import Site
from tumble.rockfall.site.areas import largest_remainder
from tumble.rockfall.step.model import TRAJECTORY_COLUMNS
from tumble.rockfall.step.nets import (
    BROKE_THROUGH,
    CAUGHT,
    X_GROUND,
    X_OUTCOME,
    X_SEGMENT,
    X_T,
    X_VX,
    X_WX,
    X_X,
    X_Y,
    X_Z,
)

#: spawn key of the stream that draws the kept rocks: no rock has it (rock numbers are below
#: the largest count a configuration accepts, 2^63 - 1)
SAMPLE_STREAM = 2**63 - 1
#: how the kept rocks are chosen, as ``summary.json["trajectories"]["selection"]`` says it
SELECTION = (
    "stratified over (release area, rock class): one rock per group when output.trajectories "
    "allows, the rest in proportion to the group sizes (largest remainder); rock 0 always; "
    "drawn without replacement within each group from a stream of the run's seed"
)
#: the arrays of a :class:`RockTrajectory` that are not one value per sample
PER_ROCK_FIELDS = ("inertia", "crossings")
#: relative and absolute tolerance of :func:`replay_mismatches` (round-off of the interpolation)
REPLAY_RTOL = REPLAY_ATOL = 1e-9


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


# ------------------------------------------------------------------------- the kept rocks


@dataclass(frozen=True)
class KeptRocks:
    """The rocks whose trajectories a run keeps (module docstring): ``rocks`` ascending, and per
    non-empty group (release area, rock class) its ``source``, ``rock_class``, ``released`` and
    ``kept`` rocks."""

    rocks: np.ndarray
    groups: tuple[dict[str, Any], ...]
    n_released: int
    seed: int

    def describe(self, every: int, not_reproduced: Sequence[int] = ()) -> dict[str, Any]:
        """``summary.json["trajectories"]``: which rocks, how chosen, per-group counts, what of
        each is kept, and the kept rocks whose replayed crossings differ from the run's."""
        return {
            "rocks": [int(k) for k in self.rocks],
            "n_kept": int(self.rocks.size),
            "n_released": self.n_released,
            "share": self.rocks.size / self.n_released if self.n_released else None,
            "selection": SELECTION,
            "seed": self.seed,
            "groups": [dict(g) for g in self.groups],
            "every_steps": int(every),
            "barrier_crossings_kept": True,
            "crossings_not_reproduced": [int(k) for k in not_reproduced],
        }


def _sample_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(SAMPLE_STREAM,)))


def allocate(group_sizes: ArrayLike, count: int, first: int | None = None) -> np.ndarray:
    """How many of ``count`` rocks each group gets, of ``group_sizes`` rocks (module docstring):
    one per non-empty group when ``count`` allows, the rest in proportion to the sizes less one;
    all of every group when ``count`` reaches the total. ``first``: a group that must get one."""
    sizes = np.asarray(group_sizes, dtype=np.int64)
    total = int(sizes.sum())
    count = min(int(count), total)
    if count < 0:
        raise ValueError(f"the number of kept rocks must not be negative, got {count}")
    if count == total:
        return sizes.copy()
    kept = np.zeros_like(sizes)
    occupied = np.flatnonzero(sizes)
    if count >= occupied.size:
        kept[occupied] = 1
        kept[occupied] += largest_remainder((sizes[occupied] - 1).tolist(), count - occupied.size)
    elif count > 0:
        kept[occupied] = largest_remainder(sizes[occupied].tolist(), count)
        if first is not None and kept[first] == 0:
            kept[int(np.argmax(kept))] -= 1
            kept[first] += 1
    return kept


def choose_rocks(site: Site, count: int, seed: int) -> KeptRocks:
    """The ``count`` rocks (at most all) whose trajectories a run of ``site``'s rocks keeps
    (module docstring)."""
    n = int(site.source_of.shape[0])
    n_classes = len(site.class_names)
    group = np.asarray(site.source_of, dtype=np.int64) * n_classes + site.class_of
    sizes = np.bincount(group, minlength=len(site.source_names) * n_classes)
    home = int(group[0]) if n else None
    kept = allocate(sizes, count, home)
    rng = _sample_rng(seed)
    order = np.argsort(group, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    chosen = [np.array([0], dtype=np.int64)] if n and count > 0 else []
    groups = []
    for g in np.flatnonzero(sizes):
        members = order[starts[g] : starts[g + 1]]
        wanted = int(kept[g])
        if g == home and wanted > 0:
            members = members[members != 0]
            wanted -= 1
        if wanted:
            chosen.append(np.asarray(rng.choice(members, size=wanted, replace=False)))
        groups.append(
            {
                "source": site.source_names[g // n_classes],
                "rock_class": site.class_names[g % n_classes],
                "released": int(sizes[g]),
                "kept": int(kept[g]),
            }
        )
    rocks = np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)
    return KeptRocks(rocks.astype(np.int64), tuple(groups), n, int(seed))


# ---------------------------------------------------------------------- what is kept of one


def _sample_fields(traj: RockTrajectory) -> list[str]:
    """The fields of ``traj`` that hold one value per sample (time, state, diagnostics)."""
    n = len(traj)
    return [
        f.name
        for f in dataclasses.fields(traj)
        if f.name not in PER_ROCK_FIELDS
        and isinstance(value := getattr(traj, f.name), np.ndarray)
        and value.ndim >= 1
        and value.shape[0] == n
    ]


def replay_sample(traj: RockTrajectory, every: int, barriers: Sequence[Barrier]) -> RockTrajectory:
    """The samples of ``traj`` (every step saved) that a run keeps (module docstring): every
    ``every``-th step, the final one, the steps around each crossing of ``barriers``, and a
    crossing sample at each crossing where a net acted; in time order."""
    n = len(traj)
    if n != traj.steps + 1:
        raise ValueError(
            f"the trajectory must hold every step ({traj.steps + 1} samples), it holds {n}"
        )
    if every < 1:
        raise ValueError(f"every must be a positive integer, got {every!r}")
    keep = np.zeros(n, dtype=bool)
    keep[::every] = True
    keep[-1] = True
    steps = crossing_steps(traj.position, barriers)
    keep[steps] = True
    keep[steps + 1] = True
    rows = traj.crossings
    acting = rows[np.isin(rows[:, X_OUTCOME], (CAUGHT, BROKE_THROUGH))] if rows.size else rows
    ends, times, points, crossed = [], [], [], []
    for row in acting:
        t = float(row[X_T])
        j = int(np.searchsorted(traj.t, t, side="left"))
        if not 1 <= j < n:
            continue
        keep[j - 1] = keep[j] = True
        earlier = float(np.nextafter(t, -np.inf))
        pair = crossing_points(
            tuple(traj.position[j - 1, :2]), (row[X_X], row[X_Y]), barriers, int(row[X_SEGMENT])
        )
        if pair is None or not traj.t[j - 1] < earlier < t < traj.t[j]:
            continue  # no room for the crossing samples (replay_mismatches tells)
        ends += [j, j]
        times += [earlier, t]
        points += list(pair)
        crossed += [row, row]
    names = _sample_fields(traj)
    index = np.flatnonzero(keep)
    fields = {name: getattr(traj, name)[index] for name in names}
    if ends:
        at = np.asarray(crossed)
        extra = {name: getattr(traj, name)[np.asarray(ends)] for name in names}
        extra["t"] = np.asarray(times)
        extra["position"] = np.column_stack([np.asarray(points), at[:, X_Z]])
        extra["velocity"] = at[:, X_VX : X_VX + 3]
        extra["omega"] = at[:, X_WX : X_WX + 3]
        extra["height"] = at[:, X_Z] - at[:, X_GROUND]
        order = np.argsort(np.concatenate([fields["t"], extra["t"]]), kind="stable")
        fields = {name: np.concatenate([fields[name], extra[name]])[order] for name in names}
    return dataclasses.replace(traj, **fields)


def trajectory_sample(
    ensemble: Ensemble,
    rocks: Iterable[int],
    every: int,
    known: Mapping[int, RockTrajectory] | None = None,
) -> dict[str, np.ndarray]:
    """The kept trajectories of ``rocks`` (:func:`replay_sample` with the ensemble's barriers),
    one table with a ``rock`` column, sorted by rock and time. Each rock is simulated again with
    every step saved, one at a time; ``known``: such trajectories already at hand, by rock."""
    parts: dict[str, list[np.ndarray]] = {}
    for k in sorted({int(r) for r in rocks}):
        traj = known.get(k) if known else None
        if traj is None:
            traj = ensemble.trajectory(k, save_every=1)
        columns = trajectory_columns(replay_sample(traj, every, ensemble.barriers))
        columns = {"rock": np.full(columns["t"].shape, k, dtype=np.int64), **columns}
        for name, values in columns.items():
            parts.setdefault(name, []).append(values)
    return {name: np.concatenate(values) for name, values in parts.items()}


def sample_starts(sample: Mapping[str, np.ndarray], n_rocks: int) -> np.ndarray:
    """(n_rocks, 2): x, y of the first sample of every rock of a trajectory sample (its
    start), NaN for the rocks the sample does not hold."""
    rock = np.asarray(sample["rock"], dtype=np.int64)
    starts = np.full((int(n_rocks), 2), np.nan)
    first = np.flatnonzero(np.r_[True, rock[1:] != rock[:-1]])[: rock.size]
    starts[rock[first]] = np.column_stack(
        [np.asarray(sample["x"])[first], np.asarray(sample["y"])[first]]
    )
    return starts


def replay_mismatches(
    ensemble: Ensemble,
    sample: Mapping[str, np.ndarray],
    crossings: Mapping[str, np.ndarray] | None,
    own_side: Sequence[bool] = (),
) -> list[int]:
    """The rocks of ``sample`` whose crossings, replayed across the ensemble's own barriers
    (:func:`tumble.rockfall.ensemble.replay.replay_crossings`; the barriers of ``own_side``
    judged from each rock's first sample, its start, as the run judged them:
    :func:`tumble.rockfall.ensemble.crossings.directions_from_starts`), differ from the run's
    ``crossings`` table: another row count, barrier, direction or outcome, or a number farther
    apart than :data:`REPLAY_RTOL` relative and :data:`REPLAY_ATOL` absolute."""
    if not ensemble.barriers or crossings is None or len(sample.get("rock", ())) == 0:
        return []
    rock = np.asarray(sample["rock"], dtype=np.int64)
    replayed = replay_crossings(
        ensemble.terrain,
        ensemble.barriers,
        sample,
        ensemble.bodies,
        lambda k: ensemble.rock(k).vertices,
    )
    if any(own_side):
        replayed = directions_from_starts(
            replayed, ensemble.barriers, own_side, sample_starts(sample, ensemble.n_rocks)
        )
    ran_rock = np.asarray(crossings["rock"], dtype=np.int64)
    differ = []
    for k in np.unique(rock):
        a = np.flatnonzero(ran_rock == k)
        b = np.flatnonzero(replayed["rock"] == k)
        same = a.size == b.size
        for name in CROSSING_COLUMNS:
            if not same:
                break
            left, right = np.asarray(crossings[name])[a], np.asarray(replayed[name])[b]
            if left.dtype.kind in "iuf":
                same = bool(
                    np.allclose(right, left, rtol=REPLAY_RTOL, atol=REPLAY_ATOL, equal_nan=True)
                )
            else:
                same = left.astype(str).tolist() == right.astype(str).tolist()
        if not same:
            differ.append(int(k))
    return differ
