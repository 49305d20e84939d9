"""Releases on the Authume test profiles, and each profile's test as one scenario.

Releases (:func:`authume_releases`). Rock ``k`` draws from its own stream
``default_rng(SeedSequence(seed).spawn(n)[k])``, so a rock's release does not depend on ``n``
or on how an ensemble is chunked. Rocks ``k < 256`` take drop point ``k mod 4`` and orientation
``(k div 4) mod 64``: 256 rocks release every (drop point, orientation) pair once. Beyond, the
drop point is uniform and the orientation a uniformly random rotation (Shoemake 1992), since the
64 given orientations are spread evenly over all rotations (they hold 60 distinct rotations:
numbers 1-4 recur as 64-61). The mass is a bootstrap draw from the profile's measured masses
(default) or from the log-normal fitted to them (mean and standard deviation of ``log m``); see
:func:`authume_releases` for the choice of shape and the scaling.

Each rock is one of the four block shapes (:mod:`tumble.validation.authume.data`): the convex
hull of the block, scaled isotropically by ``scale`` and carrying the mass ``mass``, the form in
which :class:`tumble.rockfall.ensemble.Ensemble` takes its rocks (:meth:`AuthumeReleases.shapes`).

Drop points. The published drop points of a profile (the corners of a 4 m x 4 m horizontal
square) lie 2-7 m beyond the crest of the cliff top and 1.4-8.2 m above the vegetated slope
below them (:func:`crest_offsets`). With ``drop_offset`` each drop point moves along the
profile's direction to that horizontal distance beyond its own crest, keeping its height and
its lateral position; the crest of a drop point is where the terrain, followed back from the
drop point against the profile's direction, first comes within :data:`CREST_DROP` of the
highest terrain on that line within :data:`CREST_SEARCH` (the rim of the cliff-top platform).

Scenarios (:func:`authume_scenario`, :data:`SCENARIOS`): ``authume-p1`` and ``authume-p2``, the
terrain of :mod:`tumble.validation.authume.terrain`, the releases and the measured stop points.

Reference: K. Shoemake, Uniform random rotations, Graphics Gems III (1992) 124-132.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble.rockfall.release import uniform_quaternion
from tumble.rockfall.rock import Rock
from tumble.rockfall.terrain import Terrain
from tumble.rotation.quaternion import quat_mul, quat_rotate
from tumble.validation.authume import data
from tumble.validation.authume.data import (
    BLOCK_NAMES,
    DENSITY,
    Q_DATA_TO_TUMBLE,
    AuthumeBlock,
    MeasuredEndpoints,
    ProfileGeometry,
    _profile,
)
from tumble.validation.authume.terrain import authume_terrain

#: The built-in scenario names, one per profile.
SCENARIO_NAMES = ("authume-p1", "authume-p2")
#: Releases cycling deterministically through every (drop point, orientation) pair.
N_CYCLE = 4 * 64
#: The crest of a drop point: the first point, going back from it along the profile, within
#: this height of the highest terrain on that line (m), searched over CREST_SEARCH (m).
CREST_DROP = 0.3
CREST_SEARCH = 10.0


def crest_offsets(
    profile: str | int, data_dir: str | os.PathLike[str] | None = None, spacing: float = 0.5
) -> np.ndarray:
    """Horizontal distance (m) of each of the profile's four drop points beyond its crest, along
    the profile's direction (module docstring), on the DEM of ``spacing``."""
    key = _profile(profile)
    terrain = authume_terrain(data_dir, spacing)
    direction = data.profile_geometry(key, data_dir).direction
    back = np.arange(0.0, CREST_SEARCH + 1e-9, 0.05)
    offsets = np.empty(4)
    for k, point in enumerate(data.drop_points(key, data_dir)):
        xy = point[:2] - back[:, None] * direction
        inside = terrain.contains(xy[:, 0], xy[:, 1])
        # the line ends where it leaves the DEM
        end = int(np.argmin(inside)) if not inside.all() else back.size
        if end < 2:
            raise ValueError(f"drop point {k} of {key} lies at the border of the DEM")
        z = terrain.height(xy[:end, 0], xy[:end, 1])
        offsets[k] = back[int(np.argmax(z >= z.max() - CREST_DROP))]
    return offsets


# ---------------------------------------------------------------------------------------------
# releases


@dataclass(frozen=True, eq=False)
class AuthumeReleases:
    """Initial states of ``n`` rocks on a profile, tumble's frame, batch first.

    ``position`` (n, 3): centre of mass of the rock's hull (m); ``quaternion`` (n, 4): the hull's
    principal frame (the body frame of :meth:`rock`) to space, scalar first;
    ``mesh_quaternion`` (n, 4): the block's mesh frame to space; ``shape_id`` (n,): index into
    ``shape_names``; ``mass`` (n,) kg; ``scale`` (n,): isotropic scale of the shape;
    ``drop_id`` (n,): drop point 0..3; ``orientation_id`` (n,): index of the given orientation,
    -1 for a random one; ``measured_id`` (n,): the measured block whose mass (bootstrap) and
    aspect were drawn. Velocities are zero: the blocks were released from a shovel.
    """

    profile: str
    seed: int
    position: np.ndarray
    quaternion: np.ndarray
    mesh_quaternion: np.ndarray
    shape_id: np.ndarray
    mass: np.ndarray
    scale: np.ndarray
    drop_id: np.ndarray
    orientation_id: np.ndarray
    measured_id: np.ndarray
    shape_names: tuple[str, ...]
    blocks: dict[str, AuthumeBlock]

    def __len__(self) -> int:
        return int(self.mass.shape[0])

    def rock(self, k: int) -> Rock:
        """The rock released as number ``k`` (its hull, scaled, with its mass)."""
        return self.blocks[self.shape_names[self.shape_id[k]]].rock(float(self.mass[k]))

    def shapes(self) -> tuple[Rock, ...]:
        """The block shapes in the order of ``shape_names``: each block's convex hull as a
        :class:`Rock` at scale 1 with the hull's own mass. Rock ``k`` is shape ``shape_id[k]``
        with vertices times ``scale[k]``, mass ``mass[k]`` and principal moments times
        ``(mass[k] / hull mass) scale[k]^2``, the same numbers as :meth:`rock`."""
        shapes = []
        for name in self.shape_names:
            hull = self.blocks[name].hull
            shapes.append(Rock(name, hull.mass, hull.inertia, hull.vertices, hull.volume))
        return tuple(shapes)


def _aspect(size: np.ndarray) -> np.ndarray:
    """``log(L2 / L1), log(L3 / L1)`` of sizes sorted descending, shape (..., 2)."""
    size = np.asarray(size, dtype=np.float64)
    return np.log(size[..., 1:] / size[..., :1])


def authume_releases(
    profile: str | int,
    n: int = N_CYCLE,
    seed: int = 0,
    data_dir: str | os.PathLike[str] | None = None,
    mass: str = "bootstrap",
    shape: str = "aspect",
    density: float = DENSITY,
    drop_offset: float | None = None,
) -> AuthumeReleases:
    """Release ``n`` blocks on a profile, matching its measured masses (module docstring).

    ``drop_offset`` (m): release each drop point's blocks at that horizontal distance beyond
    its crest (module docstring); ``None``: at the published drop points.

    Per rock ``k``, from its own stream (``SeedSequence(seed).spawn(n)[k]``) in this order:

    1. a measured block of the profile, uniformly (the bootstrap);
    2. its mass: that block's measured mass (``mass="bootstrap"``), or a draw from the
       log-normal fitted to the profile's masses (``mass="lognormal"``);
    3. the shape: ``shape="aspect"`` takes the shape whose bounding-box aspect ratios
       ``L2/L1, L3/L1`` (:attr:`AuthumeBlock.size`) are nearest (in log) to the measured
       block's, and among shapes of equal aspect (SP2A, SP2B) the one whose own mass is
       nearest (in log) to the drawn mass; ``"uniform"`` one of the four at random; a block
       name uses that shape for every rock;
    4. drop point and orientation: ``k mod 4`` and ``(k div 4) mod 64`` for ``k < 256``, then a
       uniform drop point and a uniformly random rotation.

    The shape is scaled isotropically so that its mesh volume times ``density`` equals the
    mass; the rock (the convex hull) carries that mass. The hull's centre of mass is placed
    where the drop point puts the mesh frame's origin.
    """
    key = _profile(profile)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if mass not in ("bootstrap", "lognormal"):
        raise ValueError(f"mass must be 'bootstrap' or 'lognormal'; got {mass!r}")
    if shape not in ("aspect", "uniform", *BLOCK_NAMES):
        raise ValueError(
            f"shape must be 'aspect', 'uniform' or one of {BLOCK_NAMES}; got {shape!r}"
        )
    blocks = data.authume_blocks(data_dir, density)
    measured = data.measured_endpoints(key, data_dir)
    drops = data.drop_points(key, data_dir)
    if drop_offset is not None:
        drop_offset = float(drop_offset)
        if not (math.isfinite(drop_offset) and drop_offset >= 0.0):
            raise ValueError(f"drop_offset must be finite and not negative; got {drop_offset!r}")
        shift = crest_offsets(key, data_dir) - drop_offset
        drops = drops.copy()
        drops[:, :2] -= shift[:, None] * data.profile_geometry(key, data_dir).direction
    given = data.orientations(data_dir)

    names = tuple(blocks)
    shape_aspect = np.array([_aspect(blocks[s].size) for s in names])
    shape_log_mass = np.log([blocks[s].mass for s in names])
    log_mass = np.log(measured.mass)
    mu, sigma = log_mass.mean(), log_mass.std(ddof=1)
    measured_aspect = _aspect(measured.size)

    measured_id = np.empty(n, dtype=np.int64)
    masses = np.empty(n)
    shape_id = np.empty(n, dtype=np.int64)
    drop_id = np.empty(n, dtype=np.int64)
    orientation_id = np.full(n, -1, dtype=np.int64)
    q_mesh = np.empty((n, 4))
    for k, child in enumerate(np.random.SeedSequence(int(seed)).spawn(n)):
        rng = np.random.default_rng(child)
        m_id = int(rng.integers(measured.mass.size))
        m = measured.mass[m_id] if mass == "bootstrap" else math.exp(rng.normal(mu, sigma))
        if shape == "aspect":
            distance = np.linalg.norm(shape_aspect - measured_aspect[m_id], axis=1)
            # shapes of equal aspect (within 1 %) are told apart by their mass
            near = distance <= distance.min() + 0.01
            s_id = int(np.argmin(np.where(near, np.abs(shape_log_mass - math.log(m)), np.inf)))
        elif shape == "uniform":
            s_id = int(rng.integers(len(names)))
        else:
            s_id = names.index(shape)
        if k < N_CYCLE:
            drop_id[k], orientation_id[k] = k % 4, (k // 4) % 64
            q_mesh[k] = given[orientation_id[k]]
        else:
            drop_id[k] = int(rng.integers(4))
            q_mesh[k] = quat_mul(Q_DATA_TO_TUMBLE[None], uniform_quaternion(rng)[None])[0]
        measured_id[k], masses[k], shape_id[k] = m_id, m, s_id

    scale = np.array(
        [blocks[names[s]].scale_for_mass(m) for s, m in zip(shape_id, masses, strict=True)]
    )
    hull_q = np.array([blocks[s].hull.quaternion for s in names])[shape_id]
    centroid = np.array([blocks[s].hull.centroid for s in names])[shape_id] * scale[:, None]
    position = drops[drop_id] + quat_rotate(q_mesh, centroid)
    quaternion = quat_mul(q_mesh, hull_q)
    quaternion *= np.where(quaternion[:, :1] < 0, -1.0, 1.0)
    arrays = [position, quaternion, q_mesh, shape_id, masses, scale, drop_id, orientation_id]
    for array in (*arrays, measured_id):
        array.flags.writeable = False
    return AuthumeReleases(
        key,
        int(seed),
        position,
        quaternion,
        q_mesh,
        shape_id,
        masses,
        scale,
        drop_id,
        orientation_id,
        measured_id,
        names,
        blocks,
    )


# ---------------------------------------------------------------------------------------------
# scenarios


@dataclass(frozen=True, eq=False)
class AuthumeScenario:
    """A profile's test: the terrain, the blocks, the releases and the measured stop points."""

    name: str
    profile: str
    terrain: Terrain
    blocks: dict[str, AuthumeBlock]
    releases: AuthumeReleases
    endpoints: MeasuredEndpoints
    geometry: ProfileGeometry
    settings: dict[str, Any]


def authume_scenario(
    name: str,
    n: int = N_CYCLE,
    seed: int = 0,
    spacing: float = 0.5,
    data_dir: str | os.PathLike[str] | None = None,
    mass: str = "bootstrap",
    shape: str = "aspect",
    density: float = DENSITY,
    drop_offset: float | None = None,
) -> AuthumeScenario:
    """The scenario ``authume-p1`` or ``authume-p2``: the quarry DEM at ``spacing`` with its
    zones, ``n`` releases from the profile's four drop points (256 = every drop point with every
    given orientation; moved to ``drop_offset`` beyond the crest unless it is None, see
    :func:`authume_releases`), the block shapes and the measured stop points."""
    if name not in SCENARIO_NAMES:
        raise ValueError(f"unknown Authume scenario {name!r}; known: {', '.join(SCENARIO_NAMES)}")
    key = _profile(name)
    releases = authume_releases(
        key, n, seed, data_dir, mass=mass, shape=shape, density=density, drop_offset=drop_offset
    )
    settings = {
        "n": int(n),
        "seed": int(seed),
        "spacing": float(spacing),
        "mass": mass,
        "shape": shape,
        "density": float(density),
        "drop_offset": None if drop_offset is None else float(drop_offset),
    }
    return AuthumeScenario(
        name,
        key,
        authume_terrain(data_dir, spacing),
        releases.blocks,
        releases,
        data.measured_endpoints(key, data_dir),
        data.profile_geometry(key, data_dir),
        settings,
    )


#: Scenario name -> builder (keyword arguments as :func:`authume_scenario`).
SCENARIOS = {name: functools.partial(authume_scenario, name) for name in SCENARIO_NAMES}
