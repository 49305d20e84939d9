"""The barriers of a run from its ``[[barrier]]`` entries: inline lines, or lines read from vector
files through :func:`tumble.io.vectors.read_lines`, their vertices transformed to the DEM's CRS
and every vertex on the DEM, with a :class:`~tumble.errors.ConfigError` naming the barrier and
carrying its key (``barrier.<k>``, ``barrier.<k>.file``, ``barrier.<k>.uphill``).

**Which side the rocks come from.** Every barrier has an uphill side, ``"left"`` or ``"right"``
of its line seen from its first point to its last (:mod:`tumble.rockfall.barriers`): crossings
from there are downslope (counted in the design values, held by a net), crossings the other way
upslope, whatever the terrain at the line looks like (a counter-slope, a dam at the foot of a
slope, a line across a gully). It is, in this order:

1. the entry's ``uphill`` key;
2. for a line read from a vector file, the feature's ``uphill`` attribute when the layer has one
   (``left`` or ``right``; an empty value is no value);
3. decided from the run's release (:meth:`tumble.rockfall.release.Release.footprint`, weighted
   points that stand for the release point, line, polygon, areas or source raster, each area
   weighted by its share of the rocks): the side of the line holding at least two thirds of the
   release (:data:`tumble.rockfall.barriers.UPHILL_MAJORITY`; a point belongs to the side of
   the line nearest to it, beyond the line's ends to the side of its end segment extended).

**Which way a crossing goes.** A net holds rocks from its uphill side only (the simulation
decides it as the rock meets the net), so its crossings are judged from that side
(``direction_from = "uphill"``). An observation line whose side is decided from the release
takes every load that reaches it: each crossing is judged from the side of the line where its
rock started (``direction_from = "start"``; :func:`tumble.rockfall.ensemble.crossings.\
directions_from_starts`), so a line drawn between two sources counts the rocks of both as
downslope, each coming from its own side, and a rock that crosses back counts upslope. The
line's ``uphill`` is then the side most of the release lies on (the larger share) and decides
only for a rock that starts on the line itself. A line with ``uphill`` given (key or attribute)
keeps the given side for every rock (``direction_from = "uphill"``).

An engineer draws a fence between the sources and what it protects, so the sources lie on one
side; if they do not (release areas on both sides of the net, or a release point on it),
guessing would silently count the wrong crossings, so the net is refused and ``uphill`` asked
for (``barrier.<k>.uphill``), with the shares on each side; so is a line with the whole release
on it. What is decided is reported per barrier (:class:`BarrierSide`) and in warnings: the share
of the release that lies on a net's protected side (rocks released there that cross the net
count as upslope, and the net does not act on them), and an ``uphill`` given against the side
where most of the release lies.

**Nodata.** A vertex off the DEM's rectangle is refused (the line is likely in other
coordinates). A line that runs over nodata areas of the DEM (holes, an irregular footprint) is
kept: no rock can reach those parts, so no crossing is recorded there, and a warning says how
long they are and names the first vertex in a nodata area. A line lying entirely over nodata
is refused.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from tumble.errors import ConfigError
from tumble.rockfall.barriers import SIDES, Barrier, release_shares, uphill_side
from tumble.rockfall.ensemble.censoring import format_percent as percent

if TYPE_CHECKING:
    from tumble.io.config import BarrierConfig
    from tumble.rockfall.terrain import Terrain


def _entry(entry: BarrierConfig | Mapping[str, Any], key: str) -> Any:
    if isinstance(entry, Mapping):
        return entry.get(key)
    return getattr(entry, key, None)


def _same_crs(file_crs: str | None, terrain_crs: Any) -> tuple[bool, str, str]:
    """Whether a file's CRS (WKT or None) agrees with the DEM's, and both as short text."""
    from rasterio.crs import CRS

    def text(crs: Any) -> str:
        if crs is None:
            return "none"
        epsg = crs.to_epsg()
        return f"EPSG:{epsg}" if epsg is not None else str(crs.to_wkt())[:80] + "..."

    a = None if file_crs is None else CRS.from_user_input(file_crs)
    b = None if terrain_crs is None else CRS.from_user_input(terrain_crs)
    # a side without a CRS takes the other's: the coordinates are checked against the DEM anyway
    same = a is None or b is None or a == b
    return same, text(a), text(b)


def _line_from_file(
    entry: BarrierConfig | Mapping[str, Any], name: str, terrain: Terrain, base: Path, key: str
) -> tuple[np.ndarray, str | None]:
    """The line of the barrier ``name`` (the entry of key ``key``) in its vector file, and the
    value of the feature's ``uphill`` attribute (None without one)."""
    from tumble.io.vectors import read_line_field, read_lines

    where = f"barrier {name!r} ({key})"
    path = Path(str(_entry(entry, "file")))
    path = path if path.is_absolute() else base / path
    layer = _entry(entry, "layer")
    name_field = _entry(entry, "name_field")
    feature = _entry(entry, "feature")
    try:
        names, lines, crs = read_lines(path, layer=layer, name_field=name_field)
    except ValueError as err:
        raise ConfigError(f"{where}: {err}", f"{key}.file") from err
    same, file_text, dem_text = _same_crs(crs, terrain.crs)
    if not same:
        # brought to the DEM's CRS vertex by vertex, as release areas are
        from tumble.io.vectors import transform_xy

        moved = []
        for line in lines:
            try:
                x, y = transform_xy(line[:, 0], line[:, 1], crs, terrain.crs)
            except ValueError as err:
                raise ConfigError(
                    f"{where}: {path} is in {file_text}, the DEM in {dem_text}, and its lines "
                    f"cannot be transformed to the DEM's ({err}); check the file's CRS label",
                    f"{key}.file",
                ) from None
            moved.append(np.column_stack([x, y]))
        lines = moved
    if name_field is not None:
        chosen = [k for k, n in enumerate(names) if n == name]
        if not chosen:
            shown = ", ".join(repr(n) for n in sorted(set(names))[:10])
            raise ConfigError(
                f"{where}: {path} has no line whose {name_field!r} is {name!r} (found: {shown})",
                f"{key}.name_field",
            )
        if len(chosen) > 1:
            raise ConfigError(
                f"{where}: {path} has {len(chosen)} lines whose {name_field!r} is {name!r} "
                "(several features or a multi-line's parts); a barrier is one line",
                f"{key}.name_field",
            )
        k = chosen[0]
    elif feature is not None:
        if not 1 <= int(feature) <= len(lines):
            raise ConfigError(
                f"{where}: feature {feature} of {path}, which holds {len(lines)} line(s)",
                f"{key}.feature",
            )
        k = int(feature) - 1
    else:
        if len(lines) != 1:
            raise ConfigError(
                f"{where}: {path} holds {len(lines)} lines (the parts of a MultiLineString are "
                "separate lines); a barrier is one line: give name_field (the attribute that "
                "holds the barrier's name) or feature (the line's index, from 1) to choose one",
                f"{key}.file",
            )
        k = 0
    try:
        uphill = read_line_field(path, UPHILL_FIELD, layer=layer)
    except ValueError as err:
        raise ConfigError(f"{where}: {err}", f"{key}.file") from err
    side = None if uphill is None else uphill[k]
    if side is not None and side.lower() not in SIDES:
        raise ConfigError(
            f"{where}: the {UPHILL_FIELD!r} attribute of its line in {path} is {side!r}; it must "
            "be 'left' or 'right' (seen along the line from its first point to its last), or "
            "empty to decide it from the release",
            f"{key}.file",
        )
    return lines[k][:, :2], None if side is None else side.lower()


#: the attribute of a vector file's line that gives its uphill side
UPHILL_FIELD = "uphill"


@dataclass(frozen=True)
class BarrierSide:
    """How a barrier's uphill side was decided (module docstring): ``uphill`` (``"left"`` or
    ``"right"``), ``uphill_from`` (``"configuration"``: the ``uphill`` key, ``"file"``: the
    line's attribute, ``"release"``: decided from the release), and the shares of the release on
    the line's ``left`` and ``right`` (None when the release is not known)."""

    uphill: Literal["left", "right"]
    uphill_from: str
    left: float | None = None
    right: float | None = None
    #: ``"start"``: each crossing judged from the side its rock started on; ``"uphill"``: from
    #: the line's uphill side (module docstring)
    direction_from: Literal["start", "uphill"] = "uphill"

    def record(self) -> dict[str, Any]:
        """The keys a barrier's entry of ``summary.json["barriers"]`` carries: ``uphill``,
        ``uphill_from``, ``release_share_uphill`` and ``release_share_downslope`` (the shares
        of the release on either side, None when not known), ``direction_from`` and
        ``direction_rule`` (which way a crossing counts, in words)."""
        shares = {"left": self.left, "right": self.right}
        other = "right" if self.uphill == "left" else "left"
        return {
            "uphill": self.uphill,
            "uphill_from": self.uphill_from,
            "release_share_uphill": shares[self.uphill],
            "release_share_downslope": shares[other],
            "direction_from": self.direction_from,
            "direction_rule": DIRECTION_RULES[self.direction_from],
        }


#: which way a crossing counts, in words, by :attr:`BarrierSide.direction_from`
DIRECTION_RULES = {
    "start": "a crossing away from the side of the line where its rock started is downslope, "
    "so rocks from sources on either side of the line all count, each from its own side",
    "uphill": "a crossing from the uphill side to the other is downslope; rocks released on the "
    "other side that cross count as upslope",
}


@dataclass(frozen=True)
class SiteBarriers:
    """The barriers of a run (:func:`build_barriers`): ``barriers``, how each one's uphill side
    was decided (``sides``, None for a side left to the engine: no release was given) and the
    ``warnings`` for the run's summary."""

    barriers: tuple[Barrier, ...]
    sides: tuple[BarrierSide | None, ...]
    warnings: tuple[str, ...]


#: samples per DEM cell along a barrier line when its length over nodata areas is measured
_NODATA_SAMPLES_PER_CELL = 4


def _on_the_dem(barrier: Barrier, terrain: Terrain, where: str, key: str) -> str | None:
    """ConfigError for a vertex off the DEM's rectangle or a line entirely over nodata; the
    warning for a line partly over nodata, or None."""
    line = barrier.line
    b = terrain.bounds
    off = ~(
        (line[:, 0] >= b.x_min)
        & (line[:, 0] <= b.x_max)
        & (line[:, 1] >= b.y_min)
        & (line[:, 1] <= b.y_max)
    )
    if off.any():
        k = int(np.argmax(off))
        raise ConfigError(
            f"{where}: point {k} of the line ({line[k, 0]:.10g}, {line[k, 1]:.10g}) lies "
            f"outside the DEM, which covers x in [{b.x_min:.10g}, {b.x_max:.10g}], y in "
            f"[{b.y_min:.10g}, {b.y_max:.10g}] (its samples' centres)",
            key,
        )
    if terrain.holes == 0:
        return None
    step = min(terrain.dx, terrain.dy) / _NODATA_SAMPLES_PER_CELL
    over, total = 0.0, 0.0
    for a, c in itertools.pairwise(line):
        length = float(np.hypot(*(c - a)))
        n = max(1, math.ceil(length / step))
        f = (np.arange(n) + 0.5) / n
        inside = np.asarray(terrain.contains(a[0] + f * (c[0] - a[0]), a[1] + f * (c[1] - a[1])))
        over += length * float(np.count_nonzero(~inside)) / n
        total += length
    vertex = ~np.asarray(terrain.contains(line[:, 0], line[:, 1]), dtype=bool)
    if over == 0.0 and not vertex.any():
        return None
    if over >= total:
        raise ConfigError(
            f"{where}: the whole line lies in a nodata area of the DEM, where no rock can "
            "cross it; draw it where the DEM has heights",
            key,
        )
    text = (
        f"{where}: about {over:.3g} m of its {total:.4g} m line lie in nodata areas of the "
        "DEM, where no rock can reach it; its crossings are those of the rest of the line"
    )
    if vertex.any():
        k = int(np.argmax(vertex))
        text += (
            f" (point {k} of the line, ({line[k, 0]:.6g}, {line[k, 1]:.6g}), lies in a nodata "
            "area of the DEM)"
        )
    return text


def _decide_side(
    barrier: Barrier,
    given: Literal["left", "right"] | None,
    given_from: str,
    release: tuple[np.ndarray, np.ndarray] | None,
    where: str,
    key: str,
) -> tuple[BarrierSide | None, list[str]]:
    """The :class:`BarrierSide` of ``barrier`` (module docstring) and its warnings."""
    if release is None:
        return (None if given is None else BarrierSide(given, given_from)), []
    left, right = release_shares(barrier.line, *release)
    shares = {"left": left, "right": right}
    seen = "seen along the line from its first point to its last"
    if given is not None:
        warnings = []
        other = "right" if given == "left" else "left"
        if shares[given] < 0.5:
            warnings.append(
                f"{where}: uphill = {given!r} is given, but only {percent(shares[given])} of the "
                f"release lies on its {given} ({percent(shares[other])} on its {other}, {seen}); "
                "crossings of rocks from the other side count as upslope"
            )
        elif shares[other] > 0.0:
            warnings.append(_protected_side_warning(where, other, shares[other], seen))
        return BarrierSide(given, given_from, left, right), warnings
    side = uphill_side((left, right))
    if barrier.kind == "line" and left + right > 0.0:
        # every rock judged from its own side: the line's side decides only for a start on it
        larger: Literal["left", "right"] = "left" if left >= right else "right"
        return BarrierSide(side or larger, "release", left, right, "start"), []
    if side is None:
        found = (
            f"{percent(left)} of the release lies on its left and {percent(right)} on its right"
            if left + right > 0.0
            else "the release lies on the line itself"
        )
        raise ConfigError(
            f"{where}: {found} ({seen}), so which side the rocks come from is not clear; give "
            'uphill = "left" or uphill = "right": the side the rocks it is designed for come from',
            f"{key}.uphill",
        )
    other = "right" if side == "left" else "left"
    warnings = []
    if shares[other] > 0.0:
        warnings.append(_protected_side_warning(where, other, shares[other], seen))
    return BarrierSide(side, "release", left, right), warnings


def _protected_side_warning(where: str, side: str, share: float, seen: str) -> str:
    """Part of the release lies on the protected ``side`` of a barrier."""
    return (
        f"{where}: {percent(share)} of the release lies on its protected side ({side}, {seen}); "
        "rocks released there that cross it count as upslope and are not in its design values, "
        "and a net does not act on them (an observation line without uphill given counts each "
        "rock from its own side)"
    )


def build_barriers(
    entries: Iterable[BarrierConfig | Mapping[str, Any]],
    terrain: Terrain,
    base_dir: str | os.PathLike = ".",
    release: tuple[np.ndarray, np.ndarray] | None = None,
) -> SiteBarriers:
    """The barriers of a run from its ``[[barrier]]`` entries (validated
    :class:`~tumble.io.config.BarrierConfig` objects or plain dicts with the same keys), with
    their uphill sides decided (module docstring) from ``release``, the run's release footprint
    ``(points (k, 2), weights (k,))`` (:meth:`tumble.rockfall.release.Release.footprint`); with
    ``release`` None a barrier without ``uphill`` is left for the engine to decide from the
    rocks' starting points.

    A relative ``file`` is taken from ``base_dir``. A file in another CRS than the DEM's has its
    vertices transformed to the DEM's, as release areas do (a side without a CRS is taken to be
    in the other's: GeoJSON without a ``crs`` member is EPSG:4326 by its standard). Every
    vertex must lie on the DEM's rectangle; parts over nodata areas are kept with a warning.
    ConfigError naming the barrier and the problem, its key ``barrier.<k>`` (or a field of it,
    ``barrier.<k>.file``, ``barrier.<k>.uphill``) with ``k`` the entry's index in ``entries``.
    """
    base = Path(base_dir)
    barriers: list[Barrier] = []
    sides: list[BarrierSide | None] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        key = f"barrier.{index}"
        name = _entry(entry, "name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"a barrier needs a non-empty name, got {name!r}", f"{key}.name")
        where = f"barrier {name!r} ({key})"
        if name in seen:
            raise ConfigError(f"{where} is given twice; barrier names must be unique", key)
        seen.add(name)
        inline, file = _entry(entry, "line"), _entry(entry, "file")
        if (inline is None) == (file is None):
            raise ConfigError(f"{where}: give exactly one of line or file", key)
        given, given_from = _entry(entry, "uphill"), "configuration"
        if file is None:
            line = inline
        else:
            line, attribute = _line_from_file(entry, name, terrain, base, key)
            if given is None and attribute is not None:
                given, given_from = attribute, "file"
        if given is not None and given not in SIDES:
            raise ConfigError(
                f"{where}: uphill must be 'left' or 'right' (seen along the line from its first "
                f"point to its last), got {given!r}",
                f"{key}.uphill",
            )
        try:
            barrier = Barrier(
                name=name,
                line=line,
                height=_entry(entry, "height"),
                capacity=_entry(entry, "capacity"),
                uphill=given,
            )
        except ValueError as err:
            raise ConfigError(str(err), key) from None
        nodata = _on_the_dem(
            barrier, terrain, where, f"{key}.line" if file is None else f"{key}.file"
        )
        if nodata is not None:
            warnings.append(nodata)
        side, notes = _decide_side(barrier, given, given_from, release, where, key)
        warnings += notes
        if side is not None and barrier.uphill is None:
            barrier = Barrier(
                barrier.name, barrier.line, barrier.height, barrier.capacity, side.uphill
            )
        barriers.append(barrier)
        sides.append(side)
    return SiteBarriers(tuple(barriers), tuple(sides), tuple(warnings))


def barriers_from_config(
    entries: Iterable[BarrierConfig | Mapping[str, Any]],
    terrain: Terrain,
    base_dir: str | os.PathLike = ".",
    release: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[Barrier, ...]:
    """The barriers of :func:`build_barriers`, without the report of their sides."""
    return build_barriers(entries, terrain, base_dir, release).barriers


def side_records(sides: Sequence[BarrierSide | None]) -> list[dict[str, Any] | None]:
    """:meth:`BarrierSide.record` of every side (None stays None)."""
    return [None if side is None else side.record() for side in sides]
