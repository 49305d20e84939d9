"""The release sources of a configuration: release areas from a vector file or a source raster,
and the onset frequency of every source, which the hazard zoning weighs its rocks with
(:mod:`tumble.rockfall.hazard.zoning`: ``F(c) = sum_s f_s n_s(c) / N_s``).

**Onset frequencies**, keys of ``[release]`` (one at most)::

    frequency_per_ha = 0.01            # onset events per year and hectare of release area
    frequency_per_ha_field = "f_ha"    # the same from each area's attribute
    frequency_per_100m = 0.05          # per year and 100 m of a release line (release.line)
    frequency_field = "freq"           # per year and area: a scenario event anywhere in it

A density (per hectare, per 100 m) is how a practitioner states the activity of a cliff: each
source's frequency is the density times its size, ``f_s = d A_s`` (``A_s`` in hectares, in plan,
of the area's part on the DEM: the rocks start there; a source raster's releasing cells on the
DEM; ``release.polygon`` likewise; the length of ``release.line`` on the DEM in units of 100 m).
Each rock then stands for ``d A_s / N_s`` events per year, so one polygon and the same polygon
split in two (rocks by area, the default weights) give every rock the same weight and the same
zones, and a large area is as active per hectare as a small one. A frequency per area
(``frequency_field``) is that of one event anywhere in the area, a scenario: spread over the
area's rocks, it reaches a cell below a part of the area only in the share of the rocks that
start above it, so a large area dilutes it (:func:`dilution_warnings`).

Release lines read from a file (``frequency_per_100m_field``) are not read yet: ``release.areas``
reads polygons. The key is refused with that said, naming what works (a ``release.line`` with
``frequency_per_100m``, or the cliff band drawn as polygons with ``frequency_per_ha``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.errors import ConfigError
from tumble.rockfall.release.polygons import ring_area
from tumble.rockfall.site.areas import ReleaseAreas

if TYPE_CHECKING:
    from tumble.io.config import RockfallConfig
    from tumble.rockfall.hazard.sources import Site
    from tumble.rockfall.release import Clip, Release
    from tumble.rockfall.terrain import Terrain

#: keys of [release] that apply to release areas read from a vector file
AREA_FILE_KEYS = (
    "layer",
    "name_field",
    "frequency_field",
    "frequency_per_ha_field",
    "weight_field",
)
#: the keys of [release] that give onset frequencies (at most one)
FREQUENCY_KEYS = (
    "frequency_field",
    "frequency_per_ha",
    "frequency_per_ha_field",
    "frequency_per_100m",
    "frequency_per_100m_field",
)
#: what each frequency key means, for the run's summary and report
FREQUENCY_BASIS = {
    "frequency_field": ("per_area", "onset events per year of each release area"),
    "frequency_per_ha": ("per_ha", "onset events per year and hectare of release area"),
    "frequency_per_ha_field": ("per_ha", "onset events per year and hectare of release area"),
    "frequency_per_100m": ("per_100m", "onset events per year and 100 m of release line"),
    "frequency_per_100m_field": ("per_100m", "onset events per year and 100 m of release line"),
}
#: m^2 per hectare, m per 100 m
M2_PER_HA = 1e4
M_PER_100M = 100.0
#: a per-area frequency is diluted when no cell is reached by more than this share of the rocks
#: of its area (:func:`dilution_warnings`)
DILUTED_SHARE = 0.5


def frequency_key(config: RockfallConfig) -> str | None:
    """The one frequency key of ``[release]`` given, or None; ConfigError for more than one, or
    for one that does not apply to the release's place (module docstring)."""
    r = config.release
    given = [k for k in FREQUENCY_KEYS if getattr(r, k) is not None]
    if len(given) > 1:
        raise ConfigError(
            f"give one onset frequency of the release, got release.{' and release.'.join(given)}",
            f"release.{given[1]}",
        )
    if not given:
        return None
    key = given[0]
    place = (
        "areas"
        if r.areas is not None
        else "raster"
        if r.raster is not None
        else "line"
        if r.line is not None
        else "polygon"
        if r.polygon is not None
        else "point"
    )
    fits = {
        "frequency_field": ("areas",),
        "frequency_per_ha": ("areas", "raster", "polygon"),
        "frequency_per_ha_field": ("areas",),
        "frequency_per_100m": ("line",),
        "frequency_per_100m_field": (),
    }
    if key == "frequency_per_100m_field":
        raise ConfigError(
            "release.frequency_per_100m_field: release lines read from a file are not supported "
            "(release.areas reads polygons); give release.line with frequency_per_100m, or draw "
            "the cliff band as polygons with frequency_per_ha or frequency_per_ha_field",
            f"release.{key}",
        )
    if place not in fits[key]:
        what = {
            "frequency_field": "release areas read from a vector file (release.areas)",
            "frequency_per_ha": "a release area: release.areas, release.raster or "
            "release.polygon (a line takes frequency_per_100m)",
            "frequency_per_ha_field": "release areas read from a vector file (release.areas)",
            "frequency_per_100m": "a release line (release.line; an area takes frequency_per_ha)",
        }[key]
        raise ConfigError(
            f"release.{key} applies to {what}, not a release {place}", f"release.{key}"
        )
    return key


def release_areas(
    config: RockfallConfig, terrain: Terrain, base: Path, rocks: int
) -> ReleaseAreas | None:
    """The release areas of ``release.areas`` or ``release.raster`` with their onset
    frequencies (module docstring), or None."""
    r = config.release
    key = frequency_key(config)
    file_keys = [k for k in AREA_FILE_KEYS if getattr(r, k) is not None]
    if r.areas is not None and r.raster is not None:
        raise ConfigError("give release.areas or release.raster, not both", "release.raster")
    if r.areas is None and file_keys:
        raise ConfigError(
            f"release.{', release.'.join(file_keys)} applies to release areas read from a "
            "vector file (release.areas = ...)",
            f"release.{file_keys[0]}",
        )
    try:
        if r.areas is not None:
            path = Path(r.areas)
            areas = ReleaseAreas.from_file(
                path if path.is_absolute() else base / path,
                terrain,
                rocks,
                layer=r.layer,
                name_field=r.name_field,
                frequency_field=r.frequency_field or r.frequency_per_ha_field,
                weight_field=r.weight_field,
            )
        elif r.raster is not None:
            path = Path(r.raster)
            areas = ReleaseAreas.from_raster(
                path if path.is_absolute() else base / path, terrain, rocks
            )
        else:
            return None
    except (ValueError, OSError) as err:
        where = "release.areas" if r.areas is not None else "release.raster"
        raise ConfigError(str(err), where) from err
    if key in ("frequency_per_ha", "frequency_per_ha_field"):
        densities = [
            r.frequency_per_ha if key == "frequency_per_ha" else a.frequency for a in areas.areas
        ]
        frequencies = [
            float(d or 0.0) * _on_dem(a.area_m2, a.clip, areas.cells is None) / M2_PER_HA
            for d, a in zip(densities, areas.areas, strict=True)
        ]
        described = {k: v for k, v in areas.description.items() if k != "frequency_field"}
        described[key] = getattr(r, key)
        areas = areas.with_frequencies(frequencies, described)
    return areas


def _on_dem(size: float, clip: Clip | None, clipped: bool = True) -> float:
    """The part of a place's size on the DEM (``clipped``: the size is the whole place's)."""
    if clip is None or not clipped or clip.share == 0.0:
        return size
    return size * (1.0 - clip.share)


def inline_frequency(config: RockfallConfig, release: Release, terrain: Terrain) -> float | None:
    """The onset frequency of a typed-in ``release.polygon`` (``frequency_per_ha``) or
    ``release.line`` (``frequency_per_100m``), or None (module docstring)."""
    r = config.release
    key = frequency_key(config)
    if key not in ("frequency_per_ha", "frequency_per_100m") or release.areas is not None:
        return None
    (clip,) = release.clips(terrain)
    if key == "frequency_per_100m":
        assert release.line is not None and r.frequency_per_100m is not None
        (x1, y1), (x2, y2) = release.line
        return r.frequency_per_100m * _on_dem(math.hypot(x2 - x1, y2 - y1), clip) / M_PER_100M
    assert release.polygon is not None and r.frequency_per_ha is not None
    size = ring_area(np.asarray(release.polygon, dtype=np.float64))
    return r.frequency_per_ha * _on_dem(size, clip) / M2_PER_HA


def with_inline_frequency(site: Site, frequency: float | None) -> Site:
    """``site`` with the frequency of its one source (a typed-in polygon or line), when given."""
    if frequency is None:
        return site
    return dataclasses.replace(site, source_frequency=(frequency,))


def frequency_record(config: RockfallConfig) -> dict[str, Any] | None:
    """Which onset frequency the run used (``summary.json["zoning"]["frequency"]``): ``basis``
    (``per_area``, ``per_ha``, ``per_100m``), ``key``, ``value`` (a density given for every
    source) or ``field`` (the attribute), and ``text``; None without one."""
    key = frequency_key(config)
    if key is None:
        return None
    basis, text = FREQUENCY_BASIS[key]
    value = getattr(config.release, key)
    from_field = key.endswith("_field")
    return {
        "basis": basis,
        "key": f"release.{key}",
        "value": None if from_field else value,
        "field": value if from_field else None,
        "text": text
        + (" (a scenario event anywhere in the area)" if basis == "per_area" else "")
        + (f", from the attribute {value!r}" if from_field else f": {value:g}"),
    }


def add_frequency_notes(
    summary: dict[str, Any],
    site: Site,
    reach: Mapping[str, np.ndarray] | None,
    size: int,
    release: Release,
) -> None:
    """In a zoned run's ``summary``: which frequency was used (``zoning["frequency"]``, from
    ``release["frequency"]``) and the :func:`dilution_warnings` of its release areas."""
    record = (summary.get("release") or {}).get("frequency")
    summary["zoning"]["frequency"] = record
    per_area = isinstance(record, Mapping) and record.get("basis") == "per_area"
    areas = release.areas
    if not per_area or not isinstance(areas, ReleaseAreas) or areas.cells is not None:
        return
    sizes = tuple(a.area_m2 for a in areas.areas)
    summary.setdefault("warnings", []).extend(dilution_warnings(site, reach, size, sizes))


def dilution_warnings(
    site: Site,
    reach: Mapping[str, np.ndarray] | None,
    size: int,
    areas_m2: tuple[float, ...],
) -> list[str]:
    """A warning per release area with a frequency per area (``frequency_field``) that no cell
    receives more than :data:`DILUTED_SHARE` of (no cell is reached by that share of its rocks,
    from the per-source reach counts ``reach`` over ``size`` cells): its frequency is spread over
    the whole area, and a frequency per hectare is what keeps a large area's activity."""
    if reach is None or not site.zoning:
        return []
    key = np.asarray(reach["reach_key"], dtype=np.int64)
    count = np.asarray(reach["reach_count"], dtype=np.int64)
    source, _ = np.divmod(key, size)
    most = np.zeros(len(site.source_names), dtype=np.int64)
    np.maximum.at(most, source, count)
    warnings = []
    for s, name in enumerate(site.source_names):
        rocks = int(np.sum(site.source_of == s))
        frequency = site.source_frequency[s]
        if not rocks or frequency is None or frequency == 0.0:
            continue
        share = most[s] / rocks
        if share >= DILUTED_SHARE:
            continue
        area_ha = areas_m2[s] / M2_PER_HA if s < len(areas_m2) else math.nan
        warnings.append(
            f"release area {name!r} ({area_ha:.3g} ha) has a frequency per area "
            f"({frequency:g}/year, release.frequency_field): no cell is reached by more than "
            f"{100.0 * share:.3g} % of its rocks, so no cell receives more than "
            f"{frequency * share:.3g}/year of it; a frequency per area is that of one event "
            "anywhere in the area (a scenario). If it is the activity of every part of the "
            f"cliff, give release.frequency_per_ha ({frequency / area_ha:.3g}/ha here), so that "
            "a large area keeps it and splitting an area leaves the zones unchanged"
        )
    return warnings
