"""Where and how the rocks of an ensemble start: release specifications and their random draws.

A :class:`Release` describes the start of every rock of an ensemble:

* the place: a ``point`` (x, y), a ``line`` between two points (uniform along it), a
  ``polygon`` area (uniform over it, by rejection in its bounding box), or ``areas``: release
  areas from a GIS file or a source raster (:class:`tumble.rockfall.site.areas.ReleaseAreas`, which
  also split the rocks over the areas);
* ``height``: the centre of mass this far above the terrain below it (m);
* the velocity: a vector ``velocity`` (m/s, terrain frame) or a ``speed_downslope`` (m/s) along
  the line of steepest descent of the surface at the release point (tangent to it), or neither
  (at rest);
* ``omega``: the angular velocity in the body (principal) frame, rad/s;
* ``orientation``: ``"random"`` (uniformly distributed on SO(3), Shoemake 1992) or a given unit
  quaternion (w, x, y, z), body to space.

Randomness. Rock ``k`` draws from its own stream
``numpy.random.default_rng(SeedSequence(seed, spawn_key=(k,)))``, the k-th child of
``SeedSequence(seed).spawn(n)``, first its place (one uniform on a line; pairs of uniforms until
one falls inside a polygon), then its orientation (three uniforms). A rock's start therefore
depends neither on the number of rocks nor on how an ensemble is split into chunks, and one rock
can be re-drawn by itself (:meth:`Release.draw` with ``first=k, n=1``).

Built-in scenarios have a default release (:data:`SCENARIO_RELEASES`); ``slope40`` starts the
centre of mass 1.5 m above the terrain at x = 10 m, y = 0 with 1 m/s down the slope and no
spin, as in the ensemble comparison of Leine et al. 2021 (seed 000, section 6).

Citation: K. Shoemake, Uniform random rotations, Graphics Gems III (1992) 124-132.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble.rockfall.polygons import inside_rings, lattice_points, ring_area

if TYPE_CHECKING:
    from tumble.rockfall.site.areas import ReleaseAreas
    from tumble.rockfall.terrain import Terrain

#: default releases of the built-in terrains (fields of :class:`Release`)
SCENARIO_RELEASES = {
    "slope40": {"point": (10.0, 0.0), "height": 1.5, "speed_downslope": 1.0},
}
#: default height of the centre of mass above the terrain, m
HEIGHT = 1.5
#: the fields of :class:`Release` that give the place of the rocks (exactly one is set)
PLACES = ("point", "line", "polygon", "areas")
#: a polygon draw gives up after this many rejected points (a polygon of almost no area)
MAX_REJECTIONS = 100_000
#: points standing for a release line, and (about) for a release polygon or area, in its
#: footprint (:meth:`Release.footprint`)
FOOTPRINT_POINTS = 1024


def rock_rng(seed: int, k: int) -> np.random.Generator:
    """The random stream of rock ``k``: the k-th child of ``SeedSequence(seed)``."""
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(k),)))


def uniform_quaternion(rng: np.random.Generator) -> np.ndarray:
    """A uniformly distributed unit quaternion (w, x, y, z) with w >= 0 (Shoemake 1992)."""
    u1, u2, u3 = rng.random(3)
    a, b = math.sqrt(1.0 - u1), math.sqrt(u1)
    q = np.array(
        [
            b * math.cos(2.0 * math.pi * u3),
            a * math.sin(2.0 * math.pi * u2),
            a * math.cos(2.0 * math.pi * u2),
            b * math.sin(2.0 * math.pi * u3),
        ]
    )
    return q if q[0] >= 0.0 else -q


@dataclass(frozen=True)
class Release:
    """The start of the rocks of an ensemble (module docstring); fields are validated."""

    point: tuple[float, float] | None = None
    line: tuple[tuple[float, float], tuple[float, float]] | None = None
    polygon: tuple[tuple[float, float], ...] | None = None
    height: float = HEIGHT
    velocity: tuple[float, float, float] | None = None
    speed_downslope: float | None = None
    omega: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: str | tuple[float, float, float, float] = "random"
    areas: ReleaseAreas | None = None

    def __post_init__(self) -> None:
        given = [n for n in PLACES if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(
                "release: give exactly one of release.point, release.line, release.polygon, "
                f"release.areas (or release.raster); got {', '.join(given) or 'none'}"
            )
        if self.point is not None:
            object.__setattr__(self, "point", _check.pair(self.point, "release.point"))
        if self.line is not None:
            try:
                a, b = self.line
            except (TypeError, ValueError):
                raise ValueError(
                    f"release.line must be two points [[x1, y1], [x2, y2]], got {self.line!r}"
                ) from None
            line = (_check.pair(a, "release.line"), _check.pair(b, "release.line"))
            object.__setattr__(self, "line", line)
        if self.polygon is not None:
            try:
                corners = tuple(_check.pair(c, "release.polygon") for c in self.polygon)
            except TypeError:
                raise ValueError(
                    f"release.polygon must be a list of points [x, y], got {self.polygon!r}"
                ) from None
            if len(corners) < 3 or ring_area(np.array(corners)) <= 0.0:
                raise ValueError(
                    "release.polygon needs at least 3 corners enclosing a positive area, "
                    f"got {self.polygon!r}"
                )
            object.__setattr__(self, "polygon", corners)
        height = float(self.height)
        if not (math.isfinite(height) and height > 0.0):
            raise ValueError(f"release.height must be positive, got {self.height!r}")
        object.__setattr__(self, "height", height)
        if self.velocity is not None and self.speed_downslope is not None:
            raise ValueError("release: give release.velocity or release.speed_downslope, not both")
        if self.velocity is not None:
            object.__setattr__(self, "velocity", _check.triple(self.velocity, "release.velocity"))
        if self.speed_downslope is not None:
            speed = float(self.speed_downslope)
            if not (math.isfinite(speed) and speed >= 0.0):
                raise ValueError(
                    f"release.speed_downslope must not be negative, got {self.speed_downslope!r}"
                )
            object.__setattr__(self, "speed_downslope", speed)
        object.__setattr__(self, "omega", _check.triple(self.omega, "release.omega"))
        if isinstance(self.orientation, str):
            if self.orientation != "random":
                raise ValueError(
                    "release.orientation must be 'random' or a unit quaternion [w, x, y, z], "
                    f"got {self.orientation!r}"
                )
        else:
            try:
                q = np.array([float(v) for v in self.orientation])
            except (TypeError, ValueError):
                q = np.zeros(0)
            norm = float(np.linalg.norm(q)) if q.shape == (4,) else 0.0
            if q.shape != (4,) or not np.all(np.isfinite(q)) or abs(norm - 1.0) > 1e-3:
                raise ValueError(
                    "release.orientation must be 'random' or a unit quaternion [w, x, y, z], "
                    f"got {self.orientation!r}"
                )
            object.__setattr__(self, "orientation", tuple((q / norm).tolist()))

    @classmethod
    def for_scenario(cls, name: str, **fields: Any) -> Release:
        """The default release of a built-in terrain, with fields replaced by ``fields`` (a
        place given there replaces the default place, a velocity the default speed)."""
        defaults = dict(SCENARIO_RELEASES.get(name, {}))
        if any(fields.get(n) is not None for n in PLACES):
            for n in PLACES:
                defaults.pop(n, None)
        if fields.get("velocity") is not None:
            defaults.pop("speed_downslope", None)
        given = {k: v for k, v in fields.items() if v is not None}
        return cls(**{**defaults, **given})

    def check_terrain(self, terrain: Terrain) -> None:
        """ValueError naming the field when the release place is not on the terrain."""
        if self.areas is not None:
            self.areas.check_terrain(terrain)
            return
        b = terrain.bounds
        if self.point is not None:
            field, corners = "release.point", [self.point]
        elif self.line is not None:
            field, corners = "release.line", list(self.line)
        else:
            assert self.polygon is not None  # __post_init__ keeps exactly one place
            field, corners = "release.polygon", list(self.polygon)
        for x, y in corners:
            if not (b.x_min <= x <= b.x_max and b.y_min <= y <= b.y_max):
                raise ValueError(
                    f"{field}: ({x:g}, {y:g}) lies outside the DEM, which covers "
                    f"x in [{b.x_min:g}, {b.x_max:g}], y in [{b.y_min:g}, {b.y_max:g}]"
                )

    def footprint(self) -> tuple[np.ndarray, np.ndarray]:
        """Where the rocks start, as weighted points: ``(points (k, 2), weights (k,))``, the
        weights summing to 1. The release point; :data:`FOOTPRINT_POINTS` points evenly along
        a release line (the midpoints of equal parts); a square lattice of about as many points
        inside a release polygon (:func:`tumble.rockfall.polygons.lattice_points`), each of equal
        weight; release areas: :meth:`tumble.rockfall.site.areas.ReleaseAreas.footprint`. The
        barriers' uphill sides are decided from it (:mod:`tumble.rockfall.barriers`)."""
        if self.areas is not None:
            return self.areas.footprint()
        if self.point is not None:
            points = np.array([self.point], dtype=np.float64)
        elif self.line is not None:
            (x1, y1), (x2, y2) = self.line
            s = (np.arange(FOOTPRINT_POINTS) + 0.5) / FOOTPRINT_POINTS
            points = np.column_stack([x1 + s * (x2 - x1), y1 + s * (y2 - y1)])
        else:
            corners = np.array(self.polygon, dtype=np.float64)
            points = lattice_points([corners], ring_area(corners), FOOTPRINT_POINTS)
        return points, np.full(points.shape[0], 1.0 / points.shape[0])

    def _place(self, rng: np.random.Generator, k: int) -> tuple[float, float]:
        if self.areas is not None:
            return self.areas.place(rng, k)
        if self.point is not None:
            return self.point
        if self.line is not None:
            (x1, y1), (x2, y2) = self.line
            s = float(rng.random())
            return x1 + s * (x2 - x1), y1 + s * (y2 - y1)
        corners = np.array(self.polygon)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        for _ in range(MAX_REJECTIONS):
            u = rng.random(2)
            x = float(lo[0] + u[0] * (hi[0] - lo[0]))
            y = float(lo[1] + u[1] * (hi[1] - lo[1]))
            if inside_rings(np.array([x]), np.array([y]), [corners])[0]:
                return x, y
        raise ValueError("release.polygon: no point inside it was drawn; is its area zero?")

    def draw(self, terrain: Terrain, n: int, seed: int, first: int = 0) -> ReleaseStates:
        """Initial states of rocks ``first .. first + n - 1`` (module docstring)."""
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"the number of rocks must be a positive integer, got {n!r}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.check_terrain(terrain)
        place = np.empty((n, 2))
        orientation = np.empty((n, 4))
        for i in range(n):
            rng = rock_rng(seed, first + i)
            place[i] = self._place(rng, first + i)
            if self.orientation == "random":
                orientation[i] = uniform_quaternion(rng)
            else:
                orientation[i] = self.orientation
        x, y = place[:, 0], place[:, 1]
        off = np.flatnonzero(~np.asarray(terrain.contains(x, y), dtype=bool))
        if off.size:
            k = first + int(off[0])
            where = "the release"
            if self.areas is not None:
                where = f"release area {self.areas.names[int(self.areas.source_of(k))]!r}"
            raise ValueError(
                f"{where}: rock {k} would start at ({x[off[0]]:.6g}, {y[off[0]]:.6g}), which is "
                "not on the DEM's surface (a nodata hole); release areas must lie on the DEM"
            )
        position = np.column_stack([x, y, terrain.height(x, y) + self.height])
        velocity = np.zeros((n, 3))
        if self.velocity is not None:
            velocity[:] = self.velocity
        elif self.speed_downslope:
            velocity[:] = self.speed_downslope * downslope(terrain, x, y)
        omega = np.tile(np.asarray(self.omega, dtype=np.float64), (n, 1))
        return ReleaseStates(position, orientation, velocity, omega)


def downslope(terrain: Terrain, x: ArrayLike, y: ArrayLike) -> np.ndarray:
    """Unit vectors of steepest descent in the tangent plane of the surface at the points
    (x, y), shape ``broadcast + (3,)``; zero on flat ground."""
    n = np.asarray(terrain.normal(x, y), dtype=np.float64)
    d = n * n[..., 2:3] - np.array([0.0, 0.0, 1.0])
    size = np.linalg.norm(d, axis=-1, keepdims=True)
    return np.where(size > 1e-12, d / np.where(size > 1e-12, size, 1.0), 0.0)


@dataclass(frozen=True, eq=False)
class ReleaseStates:
    """Initial states of n rocks, batch first: ``position`` (n, 3) centre of mass, m;
    ``orientation`` (n, 4) unit quaternions body to space; ``velocity`` (n, 3) m/s;
    ``omega`` (n, 3) body frame, rad/s."""

    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    omega: np.ndarray

    def __post_init__(self) -> None:
        n = None
        for name, width in (("position", 3), ("orientation", 4), ("velocity", 3), ("omega", 3)):
            arr = np.ascontiguousarray(getattr(self, name), dtype=np.float64)
            if arr.ndim != 2 or arr.shape[1] != width:
                raise ValueError(f"release {name} must have shape (n, {width}), got {arr.shape}")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"release {name} contains NaN or infinite values")
            if n is not None and arr.shape[0] != n:
                raise ValueError(f"release arrays differ in length: {name} has {arr.shape[0]}")
            n = arr.shape[0]
            object.__setattr__(self, name, arr)

    def __len__(self) -> int:
        return int(self.position.shape[0])
