"""The barriers of a run from its ``[[barrier]]`` entries: inline lines, or lines read from vector
files through :func:`tumble.io.vectors.read_lines`, their CRS checked against the DEM's and every
vertex on the DEM's surface, with a :class:`~tumble.errors.ConfigError` naming the barrier and
carrying its key (``barrier.<k>``, ``barrier.<k>.file``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.errors import ConfigError
from tumble.rockfall.barriers import Barrier

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
) -> np.ndarray:
    """The line of the barrier ``name`` (the entry of key ``key``) in its vector file."""
    from tumble.io.vectors import read_lines

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
        raise ConfigError(
            f"{where}: {path} is in {file_text}, the DEM in {dem_text}; give the line in the "
            "DEM's coordinate reference system",
            f"{key}.file",
        )
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
                f"{where}: {path} holds {len(lines)} lines; give name_field (the attribute that "
                "holds the barrier's name) or feature (the line's index, from 1) to choose one",
                f"{key}.file",
            )
        k = 0
    return lines[k][:, :2]


def barriers_from_config(
    entries: Iterable[BarrierConfig | Mapping[str, Any]],
    terrain: Terrain,
    base_dir: str | os.PathLike = ".",
) -> tuple[Barrier, ...]:
    """The barriers of a run from its ``[[barrier]]`` entries (validated
    :class:`~tumble.io.config.BarrierConfig` objects or plain dicts with the same keys).

    A relative ``file`` is taken from ``base_dir``. A file's CRS must equal the DEM's (a side
    without a CRS is taken to be in the other's: GeoJSON without a ``crs`` member is EPSG:4326
    by its standard). Every vertex must lie on the DEM's surface (:meth:`Terrain.contains`).
    ConfigError naming the barrier and the problem, its key ``barrier.<k>`` (or a field of it,
    ``barrier.<k>.file``) with ``k`` the entry's index in ``entries``.
    """
    base = Path(base_dir)
    barriers: list[Barrier] = []
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
        line = inline if file is None else _line_from_file(entry, name, terrain, base, key)
        try:
            barrier = Barrier(
                name=name,
                line=line,
                height=_entry(entry, "height"),
                capacity=_entry(entry, "capacity"),
            )
        except ValueError as err:
            raise ConfigError(str(err), key) from None
        inside = np.asarray(terrain.contains(barrier.line[:, 0], barrier.line[:, 1]))
        if not inside.all():
            k = int(np.argmin(inside))
            b = terrain.bounds
            raise ConfigError(
                f"{where}: point {k} of the line ({barrier.line[k, 0]:.6g}, "
                f"{barrier.line[k, 1]:.6g}) lies outside the DEM, which covers "
                f"x in [{b.x_min:.6g}, {b.x_max:.6g}], y in [{b.y_min:.6g}, {b.y_max:.6g}]",
                f"{key}.line" if file is None else f"{key}.file",
            )
        barriers.append(barrier)
    return tuple(barriers)
