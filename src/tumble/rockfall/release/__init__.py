"""Where and how the rocks of an ensemble start: release specifications and their random draws.

A :class:`Release` describes the start of every rock of an ensemble:

* the place: a ``point`` (x, y), a ``line`` between two points (uniform along it), a
  ``polygon`` area (uniform over it, by rejection in its bounding box), or ``areas``: release
  areas from a GIS file or a source raster (:class:`tumble.rockfall.site.areas.ReleaseAreas`, which
  also split the rocks over the areas);
* ``height``: the centre of mass this far above the terrain below it (m); a rock whose hull
  would then reach into the terrain (on a cliff, a crest, a step) is lifted until its hull
  clears the terrain by ``height`` (below);
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
can be re-drawn by itself (:meth:`Release.draw` with ``first=k, n=1``). :meth:`Release.draw`
takes these draws for all rocks at once from the first uniforms of their streams
(:mod:`.streams`, :mod:`.first_places`), the same numbers to the last bit.

**Clearance.** Given the rocks' hulls (:meth:`Release.draw` with ``hulls``), every rock starts
clear of the terrain under and beside it: its clearance, the smallest vertical gap between any
point of its hull and the terrain (:mod:`tumble.rockfall.clearance`, exact over the whole hull,
not only its vertices), is computed with the centre of mass ``height`` above the terrain below
it. A rock whose clearance is negative (beyond the round-off margin
:data:`~tumble.rockfall.step.model.START_GAP_TOLERANCE` the engine accepts) does not fit there
and is lifted vertically until its clearance is ``height``: it falls ``height`` before its first
contact, as a rock on a plain slope falls about that far. The lift is measured vertically, the
gap of the contact model; on an 80 degree face a rock lifted so keeps ``height cos 80`` from the
face along its normal, and a normal gap of ``height`` would need 5.8 times the lift. Rocks that
fit are never moved, so a release that was clear before is unchanged to the last bit. A rock
whose hull reaches over a nodata area of the DEM or beyond it draws its place again from its own
stream (its orientation kept), up to :data:`MAX_PLACES` times; a place where no rock fits is
refused naming it. :meth:`ReleaseStates.report` gives the count of lifted and moved rocks and
the largest and median lift.

**Nodata.** A line, polygon or release area that reaches into a nodata area of the DEM or beyond
it is clipped to the DEM's valid cells: places are drawn again (from the rock's stream) until
they lie on the terrain, and :class:`Clip` holds the shares clipped for the run's warnings. A
place with nothing on the DEM, or a point off it, is refused, saying whether it lies in a nodata
area of the DEM or outside it.

Built-in scenarios have a default release (:data:`SCENARIO_RELEASES`); ``slope40`` starts the
centre of mass 1.5 m above the terrain at x = 10 m, y = 0 with 1 m/s down the slope and no
spin, as in the ensemble comparison of Leine et al. 2021 (seed 000, section 6).

Citation: K. Shoemake, Uniform random rotations, Graphics Gems III (1992) 124-132.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble.rockfall.clearance import Hulls, clearance, rock_clearances
from tumble.rockfall.release.first_places import box_batches
from tumble.rockfall.release.places import Areas, Clip
from tumble.rockfall.release.polygons import (
    EvenOddGrid,
    inside_rings,
    lattice_points,
    on_cells,
    region,
    ring_area,
)
from tumble.rockfall.release.streams import first_uniforms
from tumble.rockfall.step.model import START_GAP_TOLERANCE
from tumble.rotation.quaternion import quat_to_matrix

if TYPE_CHECKING:
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
#: a rock whose hull reaches off the DEM draws its place again at most this many times
MAX_PLACES = 100
#: the first uniforms of the rocks' streams from which a release polygon or area places them
#: all at once, and then the rocks not placed so (:meth:`Release._first_places`): the first
#: try of a release area (16 pairs), then sixteen tries in all
FIRST_UNIFORMS = (32, 512)
#: rocks placed at once (memory: times FIRST_UNIFORMS)
FIRST_BLOCK = 8192


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


def quaternions(uniforms: np.ndarray) -> np.ndarray:
    """:func:`uniform_quaternion` of each row ``(u1, u2, u3)`` of ``uniforms``, bit for bit
    (the angles' sines and cosines from :mod:`math`, as there)."""
    u1, u2, u3 = (np.ascontiguousarray(uniforms[:, c]) for c in range(3))
    a, b = np.sqrt(1.0 - u1), np.sqrt(u1)
    turn2, turn3 = (2.0 * math.pi * u2).tolist(), (2.0 * math.pi * u3).tolist()

    def each(function: Any, turns: list[float]) -> np.ndarray:
        return np.fromiter(map(function, turns), dtype=np.float64, count=len(turns))

    q = np.column_stack(
        [
            b * each(math.cos, turn3),
            a * each(math.sin, turn2),
            a * each(math.cos, turn2),
            b * each(math.sin, turn3),
        ]
    )
    return np.where(q[:, :1] >= 0.0, q, -q)


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
    areas: Areas | None = None
    #: the point-in-polygon grid of a release polygon, built at its first draw
    _grid: EvenOddGrid | None = field(default=None, init=False, repr=False, compare=False)

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

    def clips(self, terrain: Terrain) -> tuple[Clip, ...]:
        """The shares of each release place off ``terrain`` (module docstring): one per release
        area, one for a line or a polygon, none for a point."""
        if self.areas is not None:
            return self.areas.clips(terrain)
        if self.point is not None:
            return ()
        grid = (terrain.valid_cells, terrain.x0, terrain.y0, terrain.dx, terrain.dy)
        if self.line is not None:
            import shapely

            measures = on_cells(shapely.LineString(self.line), *grid)
            return (Clip.of("release.line", *measures, measure="length"),)
        assert self.polygon is not None  # __post_init__ keeps exactly one place
        return (Clip.of("release.polygon", *on_cells(region([np.array(self.polygon)]), *grid)),)

    def check_terrain(self, terrain: Terrain) -> None:
        """ValueError naming the field when the release place is not on the terrain: a point in
        a nodata area of the DEM or outside it, a line, polygon or area with nothing on it."""
        if self.point is not None:
            x, y = self.point
            if not bool(terrain.contains(x, y)):
                raise ValueError(
                    f"release.point: ({x:.10g}, {y:.10g}) lies {terrain.off_terrain(x, y)}"
                )
            return
        for clip in self.clips(terrain):
            clip.check(terrain)

    def footprint(self) -> tuple[np.ndarray, np.ndarray]:
        """Where the rocks start, as weighted points: ``(points (k, 2), weights (k,))``, the
        weights summing to 1. The release point; :data:`FOOTPRINT_POINTS` points evenly along
        a release line (the midpoints of equal parts); a square lattice of about as many points
        inside a release polygon (:func:`.polygons.lattice_points`), each of equal
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

    def _name(self, k: int) -> str:
        """The release place of rock ``k`` as messages name it."""
        if self.areas is not None:
            return f"release area {self.areas.names[int(self.areas.source_of(k))]!r}"
        return next(f"release.{n}" for n in PLACES if getattr(self, n) is not None)

    def _place(
        self,
        rng: np.random.Generator,
        k: int,
        terrain: Terrain | None = None,
        again: bool = False,
    ) -> tuple[float, float]:
        """The place of rock ``k`` from its stream; on ``terrain`` when it is given (a line or
        a polygon clipped to the DEM's valid cells); ``again`` for a rock that did not fit."""
        if self.areas is not None:
            return self.areas.place(rng, k, terrain, again=again)
        if self.point is not None:
            return self.point
        if self.line is not None:
            (x1, y1), (x2, y2) = self.line
            for _ in range(MAX_REJECTIONS):
                s = float(rng.random())
                x, y = x1 + s * (x2 - x1), y1 + s * (y2 - y1)
                if terrain is None or bool(terrain.contains(x, y)):
                    return x, y
            raise ValueError("release.line: no point of it on the DEM was drawn")
        corners = np.array(self.polygon)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        for _ in range(MAX_REJECTIONS):
            u = rng.random(2)
            x = float(lo[0] + u[0] * (hi[0] - lo[0]))
            y = float(lo[1] + u[1] * (hi[1] - lo[1]))
            if inside_rings(np.array([x]), np.array([y]), [corners])[0] and (
                terrain is None or bool(terrain.contains(x, y))
            ):
                return x, y
        raise ValueError(
            "release.polygon: no point inside it and on the DEM was drawn; is its area zero?"
        )

    def draw(
        self,
        terrain: Terrain,
        n: int,
        seed: int,
        first: int = 0,
        hulls: Hulls | None = None,
    ) -> ReleaseStates:
        """Initial states of rocks ``first .. first + n - 1`` (module docstring). With
        ``hulls`` (:class:`tumble.rockfall.clearance.Hulls` of every rock, e.g.
        ``Hulls.of(rock)``), every rock starts clear of the terrain: lifted where it does not
        fit, its place drawn again where its hull reaches off the DEM."""
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"the number of rocks must be a positive integer, got {n!r}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.check_terrain(terrain)
        place = np.empty((n, 2))
        orientation = np.empty((n, 4))
        lift = np.zeros(n)
        moves = np.zeros(n, dtype=np.int64)
        slow = self._first_starts(terrain, n, seed, first, place, orientation)
        for i in slow:
            place[i], orientation[i] = self._start(rock_rng(seed, first + i), first + i, terrain)
        if hulls is not None:
            # every rock's clearance at once; the few whose hull reaches off the DEM are drawn
            # again one by one, their streams replayed up to there
            rotation = quat_to_matrix(orientation)
            x, y = place[:, 0], place[:, 1]
            centre = np.column_stack([x, y, terrain.height(x, y) + self.height])
            gap, on_terrain = rock_clearances(terrain, hulls, first, centre, rotation)
            for j in np.flatnonzero(~on_terrain):
                k = first + int(j)
                rng = rock_rng(seed, k)
                self._start(rng, k, terrain)
                gap[j], moves[j] = self._move(terrain, hulls, k, rng, place[j], rotation[j])
            lift = np.where(gap < -START_GAP_TOLERANCE, self.height - gap, 0.0)
        x, y = place[:, 0], place[:, 1]
        position = np.column_stack([x, y, terrain.height(x, y) + self.height + lift])
        velocity = np.zeros((n, 3))
        if self.velocity is not None:
            velocity[:] = self.velocity
        elif self.speed_downslope:
            velocity[:] = self.speed_downslope * downslope(terrain, x, y)
        omega = np.tile(np.asarray(self.omega, dtype=np.float64), (n, 1))
        return ReleaseStates(position, orientation, velocity, omega, lift, moves)

    def _first_starts(
        self,
        terrain: Terrain,
        n: int,
        seed: int,
        first: int,
        place: np.ndarray,
        orientation: np.ndarray,
    ) -> Iterable[int]:
        """Fill ``place`` and ``orientation`` of rocks ``first .. first + n - 1`` at once from
        the first draws of their streams (:func:`.streams.first_uniforms`, the
        same numbers as :meth:`_start`); returns the rocks (indices into ``place``) left to
        :meth:`_start`: those of a line whose first place is off the DEM (drawn again), and
        those of a polygon or area whose place the first uniforms do not hold
        (:meth:`_first_places`)."""
        if self.areas is not None or self.polygon is not None:
            return self._first_places(terrain, n, seed, first, place, orientation)
        draws = 1 if self.line is not None else 0
        random = self.orientation == "random"
        uniforms = first_uniforms(seed, np.arange(first, first + n), draws + 3 * random)
        if random:
            orientation[:] = quaternions(uniforms[:, draws:])
        else:
            orientation[:] = np.asarray(self.orientation, dtype=np.float64)
        if self.point is not None:
            place[:] = self.point
            return ()
        assert self.line is not None
        (x1, y1), (x2, y2) = self.line
        s = uniforms[:, 0]
        place[:, 0] = x1 + s * (x2 - x1)
        place[:, 1] = y1 + s * (y2 - y1)
        return np.flatnonzero(~np.asarray(terrain.contains(place[:, 0], place[:, 1]), dtype=bool))

    def _first_places(
        self,
        terrain: Terrain,
        n: int,
        seed: int,
        first: int,
        place: np.ndarray,
        orientation: np.ndarray,
    ) -> np.ndarray:
        """:meth:`_first_starts` of a release polygon or areas: the places of blocks of
        :data:`FIRST_BLOCK` rocks from the first :data:`FIRST_UNIFORMS` uniforms of their
        streams (:mod:`.first_places`), then of those not placed from more; each rock's
        orientation from the three uniforms after its place's."""
        random = self.orientation == "random"
        left = []
        for start in range(0, n, FIRST_BLOCK):
            todo = np.arange(start, min(start + FIRST_BLOCK, n))
            for width in FIRST_UNIFORMS:
                rocks = first + todo
                uniforms = first_uniforms(seed, rocks, width + 3 * random)
                if self.areas is not None:
                    xy, used = self.areas.first_places(uniforms[:, :width], rocks, terrain)
                else:
                    xy, used = self._polygon_places(uniforms[:, :width], terrain)
                found = np.flatnonzero(used >= 0)
                place[todo[found]] = xy[found]
                if random:
                    at = used[found, None] + np.arange(3)
                    orientation[todo[found]] = quaternions(
                        np.take_along_axis(uniforms[found], at, axis=1)
                    )
                else:
                    orientation[todo[found]] = np.asarray(self.orientation, dtype=np.float64)
                todo = todo[used < 0]
                if todo.size == 0:
                    break
            left.append(todo)
        return np.concatenate(left)

    def _polygon_places(
        self, uniforms: np.ndarray, terrain: Terrain
    ) -> tuple[np.ndarray, np.ndarray]:
        """:func:`.first_places.box_batches` of a release polygon: pairs of uniforms in its
        bounding box, one a try, as :meth:`_place` draws them."""
        corners = np.array(self.polygon)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        if self._grid is None:
            object.__setattr__(self, "_grid", EvenOddGrid([corners]))
        box = np.array([lo[0], hi[0], lo[1], hi[1]])
        return box_batches(uniforms, box, self._grid, terrain, 1)

    def _start(
        self, rng: np.random.Generator, k: int, terrain: Terrain
    ) -> tuple[tuple[float, float], np.ndarray]:
        """The place and orientation of rock ``k``, the first draws of its stream."""
        place = self._place(rng, k, terrain)
        if self.orientation == "random":
            return place, uniform_quaternion(rng)
        return place, np.asarray(self.orientation, dtype=np.float64)

    def _move(
        self,
        terrain: Terrain,
        hulls: Hulls,
        k: int,
        rng: np.random.Generator,
        place: np.ndarray,
        rotation: np.ndarray,
    ) -> tuple[float, int]:
        """``(clearance, moves)`` of rock ``k`` whose hull reaches off the DEM at ``place``:
        places drawn again from its stream ``rng`` (after its first draws) until its hull lies
        on the DEM, ``place`` updated in place (module docstring)."""
        for moves in range(MAX_PLACES + 1):
            x, y = float(place[0]), float(place[1])
            centre = np.array([x, y, float(terrain.height(x, y)) + self.height])
            gap, on_terrain = clearance(terrain, hulls, k, centre, rotation)
            if on_terrain:
                return gap, moves
            if self.point is not None:
                raise ValueError(
                    f"release.point: rock {k} at ({x:.10g}, {y:.10g}) reaches "
                    f"{_hull_off(terrain, hulls, k, centre, rotation)}: there is no room for "
                    "it; move the point away from the edge of the DEM's data"
                )
            place[:] = self._place(rng, k, terrain, again=True)
        raise ValueError(
            f"{self._name(k)}: there is no place where rocks fit: {MAX_PLACES + 1} places drawn "
            f"for rock {k} all put its hull (radius {hulls.radius(k):.3g} m) over a nodata area "
            "of the DEM or beyond it; the area is too narrow on the DEM for the rock, or lies "
            "at the edge of its data"
        )


def downslope(terrain: Terrain, x: ArrayLike, y: ArrayLike) -> np.ndarray:
    """Unit vectors of steepest descent in the tangent plane of the surface at the points
    (x, y), shape ``broadcast + (3,)``; zero on flat ground."""
    n = np.asarray(terrain.normal(x, y), dtype=np.float64)
    d = n * n[..., 2:3] - np.array([0.0, 0.0, 1.0])
    size = np.linalg.norm(d, axis=-1, keepdims=True)
    return np.where(size > 1e-12, d / np.where(size > 1e-12, size, 1.0), 0.0)


def _hull_off(
    terrain: Terrain, hulls: Hulls, k: int, centre: np.ndarray, rotation: np.ndarray
) -> str:
    """Where the hull of rock ``k`` reaches off the terrain: a nodata area or beyond the DEM."""
    vertices = centre + hulls.of_rock(k)[0] @ rotation.T
    inside = np.asarray(terrain.within_extent(vertices[:, 0], vertices[:, 1]), dtype=bool)
    if inside.all():
        return "over a nodata area of the DEM"
    return f"outside the DEM, which covers {terrain.extent_text}"


@dataclass(frozen=True, eq=False)
class ReleaseStates:
    """Initial states of n rocks, batch first: ``position`` (n, 3) centre of mass, m;
    ``orientation`` (n, 4) unit quaternions body to space; ``velocity`` (n, 3) m/s;
    ``omega`` (n, 3) body frame, rad/s; ``lift`` (n,) how far each rock was lifted to clear the
    terrain, m, and ``moves`` (n,) how many times its place was drawn again (zeros when the
    release was drawn without hulls; module docstring)."""

    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    omega: np.ndarray
    lift: np.ndarray | None = None
    moves: np.ndarray | None = None

    def report(self) -> dict[str, Any]:
        """What the release did to fit the rocks, for ``summary.json["release"]``: ``adjusted``
        (rocks lifted), ``lift_max_m`` and ``lift_median_m`` (over the lifted rocks; 0 without
        any), ``moved`` (rocks whose place was drawn again)."""
        assert self.lift is not None and self.moves is not None  # set by __post_init__
        lifted = self.lift[self.lift > 0.0]
        return {
            "adjusted": int(lifted.size),
            "lift_max_m": float(lifted.max()) if lifted.size else 0.0,
            "lift_median_m": float(np.median(lifted)) if lifted.size else 0.0,
            "moved": int(np.count_nonzero(self.moves)),
        }

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
        assert n is not None
        lift = np.zeros(n) if self.lift is None else np.asarray(self.lift, dtype=np.float64)
        moves = np.zeros(n, dtype=np.int64) if self.moves is None else np.asarray(self.moves)
        if lift.shape != (n,) or not np.all(np.isfinite(lift)) or np.any(lift < 0.0):
            raise ValueError(f"release lift must be {n} non-negative numbers")
        if moves.shape != (n,):
            raise ValueError(f"release moves must be {n} counts")
        object.__setattr__(self, "lift", lift)
        object.__setattr__(self, "moves", moves.astype(np.int64))

    def __len__(self) -> int:
        return int(self.position.shape[0])
