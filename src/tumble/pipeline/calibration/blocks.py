"""The observed blocks of a calibration as the engine runs them: each block's rock, its release
on the configuration's terrain, and its stop, every row checked against the terrain.

Every block runs ``orientations`` times; rock ``k = block * orientations + o`` takes its
orientation from its own stream (:func:`tumble.rockfall.release.rock_rng` of the seed and
``k``), so that the releases do not depend on the number of threads. A block placed on the
terrain (no ``release_z``, no ``release_height``) has its lowest point :data:`RELEASE_CLEARANCE`
above the terrain, as in the field-test validations; ``release_height`` sets that gap;
``release_z`` is the centre's height (lifted, if its hull would reach into the terrain, until it
clears it by :data:`RELEASE_CLEARANCE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble.bodies.catalogue import ROCK_DENSITY
from tumble.errors import DataError
from tumble.io.observations import Observations
from tumble.rockfall.clearance import Hulls, rock_clearances
from tumble.rockfall.release import ReleaseStates, rock_rng, uniform_quaternion
from tumble.rockfall.rock import Rock
from tumble.rotation.quaternion import quat_to_matrix

#: gap (m) between a block's lowest point and the terrain when placed on it
RELEASE_CLEARANCE = 0.01


@dataclass(frozen=True, eq=False)
class Blocks:
    """Observed blocks: ``release`` (n, 2) and ``stop`` (n, 2) horizontal positions (m, the
    DEM's CRS), ``release_z`` and ``release_height`` (n,) (NaN where not given), ``velocity``
    (n, 3) m/s, ``rocks`` one :class:`Rock` per block, ``ids`` their labels."""

    release: np.ndarray
    stop: np.ndarray
    release_z: np.ndarray
    release_height: np.ndarray
    velocity: np.ndarray
    rocks: tuple[Rock, ...]
    ids: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.rocks)

    @property
    def runout(self) -> np.ndarray:
        """Horizontal distance (m) from release to stop of each observed block."""
        return np.hypot(*(self.stop - self.release).T)


def blocks_on(
    obs: Observations, terrain: Any, classes: Sequence[Any] = (), crs: Any = None
) -> Blocks:
    """The blocks of ``obs`` on ``terrain``; ``classes`` the configuration's rock classes
    (:class:`tumble.rockfall.site.rock_classes.RockClass`), ``crs`` the DEM's CRS (a vector
    file's points in another CRS are transformed to it). DataError naming the row and column
    of a release or stop off the DEM or in nodata, or an unknown class."""
    release = np.column_stack([obs.number("release_x"), obs.number("release_y")])
    stop = np.column_stack([obs.number("stop_x"), obs.number("stop_y")])
    if obs.crs is not None and crs is not None:
        from tumble.io.vectors import transform_xy

        try:
            release = np.column_stack(transform_xy(release[:, 0], release[:, 1], obs.crs, crs))
            stop = np.column_stack(transform_xy(stop[:, 0], stop[:, 1], obs.crs, crs))
        except ValueError as err:
            raise DataError(f"{obs.path}: {err}") from None
    for what, points in (("release", release), ("stop", stop)):
        on = np.atleast_1d(terrain.contains(points[:, 0], points[:, 1]))
        if not on.all():
            i = int(np.argmin(on))
            raise obs.refuse(
                i,
                f"{what}_x, {what}_y",
                f"({points[i, 0]:.10g}, {points[i, 1]:.10g}) is "
                f"{terrain.off_terrain(points[i, 0], points[i, 1])}",
            )
    velocity = np.nan_to_num(np.column_stack([obs.number(c) for c in ("vx", "vy", "vz")]))
    rocks = tuple(_rock(obs, i, classes) for i in range(len(obs)))
    ids = tuple(label or str(i + 1) for i, label in enumerate(obs.label("id")))
    return Blocks(
        release,
        stop,
        obs.number("release_z"),
        obs.number("release_height"),
        velocity,
        rocks,
        ids,
    )


def _rock(obs: Observations, i: int, classes: Sequence[Any]) -> Rock:
    mass, volume = obs.number("mass")[i], obs.number("volume")[i]
    shape = obs.label("shape")[i]
    name = obs.label("class")[i]
    try:
        if shape:
            build = Rock.eota221 if shape == "eota221" else Rock.eota111
            if np.isnan(mass):
                return build(mass=ROCK_DENSITY * float(volume))
            return build(mass=float(mass))
        if not np.isnan(obs.number("box_x")[i]):
            a, b, c = (float(obs.number(f"box_{axis}")[i]) for axis in "xyz")
            return Rock.box(a, b, c, mass=float(mass))
    except ValueError as err:
        raise obs.refuse(i, "shape" if shape else "box_x", str(err)) from None
    known = {getattr(c, "name", ""): c for c in classes}
    if name not in known:
        there = ", ".join(sorted(known)) or "none: the configuration has no [[rock.classes]]"
        raise obs.refuse(i, "class", f"{name!r} is not a rock class of the configuration ({there})")
    rock = known[name].shape
    if not np.isnan(mass):
        return rock.with_volume(float(mass) / rock.density)
    if not np.isnan(volume):
        return rock.with_volume(float(volume))
    return rock


@dataclass(frozen=True, eq=False)
class Releases:
    """The rocks of a calibration run: ``states``, ``block`` (n,) the observed block of each
    rock, ``shapes`` (one per block) and ``shape_id`` (n,) its index."""

    states: ReleaseStates
    block: np.ndarray
    shapes: tuple[Rock, ...]
    shape_id: np.ndarray

    def __len__(self) -> int:
        return len(self.block)


def releases(
    blocks: Blocks, terrain: Any, orientations: int, seed: int, first: int = 0
) -> Releases:
    """Every block ``orientations`` times (module docstring), rock ``k`` on the stream
    ``first + k``."""
    n = len(blocks) * orientations
    block = np.repeat(np.arange(len(blocks)), orientations)
    quaternion = np.array([uniform_quaternion(rock_rng(seed, first + k)) for k in range(n)])
    hulls = Hulls.of(blocks.rocks, block)
    xy = blocks.release[block]
    ground = terrain.height(xy[:, 0], xy[:, 1])
    radius = np.array([r.radius for r in blocks.rocks])[block]
    given_z = blocks.release_z[block]
    centre = np.column_stack([xy, np.where(np.isnan(given_z), ground + 2.0 * radius, given_z)])
    gap, on_terrain = rock_clearances(terrain, hulls, 0, centre, quat_to_matrix(quaternion))
    if not on_terrain.all():
        k = int(np.argmin(on_terrain))
        raise DataError(
            f"observed block {blocks.ids[block[k]]} reaches off the terrain at its release"
        )
    height = blocks.release_height[block]
    wanted = np.where(np.isnan(height), RELEASE_CLEARANCE, height)
    placed = np.isnan(given_z)
    # a given centre height stays unless the hull would reach into the terrain there
    lift = np.where(placed, wanted - gap, np.maximum(RELEASE_CLEARANCE - gap, 0.0))
    centre[:, 2] += lift
    states = ReleaseStates(centre, quaternion, blocks.velocity[block], np.zeros((n, 3)))
    return Releases(states, block, blocks.rocks, block.copy())
