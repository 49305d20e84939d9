"""Soil and forest class maps: per-class parameters resampled onto the DEM grid.

A class map is an integer raster on any grid, extent and CRS
(:func:`tumble.io.resample.resample_to_grid` brings it onto the DEM's samples by
nearest-neighbour resampling). Each class code maps to a
:class:`~tumble.rockfall.soil.Soil` (a catalogue preset, optionally with overridden fields) or,
for forest, to a :class:`ForestDrag`; the result is one :class:`Soil` whose fields are rasters
on the DEM grid (a field equal in every class stays a number), read by the engine like any soil
raster (bilinear at the centre of mass).

Forest is the drag layer of RAMMS::ROCKFALL (Leine et al. 2014, eq. 10-11; Leine et al. 2021,
eq. 78), the model RocFall's forest damping also uses: while the centre of mass is less than
the effective height ``drag_height`` above the terrain the rock feels ``F = -drag v`` and
``M = -drag_torque omega``; above it, nothing. In a forest cell the forest's drag layer takes the
place of the soil's drag fields; class 0 (and nodata) is no forest.

Presets ``open``, ``medium``, ``dense``: RocFall offers drag coefficients of open, medium and
dense forest after Bartelt et al. (2016), but their values are not given in a source this
project has checked, so they are not entered (:data:`FOREST_PRESETS` is empty and asking for
one says so); give ``drag``, ``drag_height`` and optionally ``drag_torque`` per class. A drag
calibrated for one block size (``authume_vegetated``: a 1 m^3 block) is not scaled to the run's
rocks; :func:`drag_volume_warnings` says so, with the drag scaled by the projected area,
``(V / V_ref)^(2/3)``.

Citation: R. I. Leine, A. Schweizer, M. Christen, J. Glover, P. Bartelt, W. Gerber, Simulation of
rockfall trajectories with consideration of rock shape, Multibody Syst. Dyn. 32 (2014) 241-271.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble.rockfall.soil import DRAG_REFERENCE_VOLUME, FIELDS, PRESETS, Soil

#: the drag fields of a soil that a forest class sets
FOREST_FIELDS = ("drag", "drag_torque", "drag_height")

#: forest presets with published coefficients (none yet: module docstring)
FOREST_PRESETS: dict[str, ForestDrag] = {}
#: preset names asked for in practice whose coefficients are not entered
UNSOURCED_FOREST_PRESETS = ("open", "medium", "dense")


@dataclass(frozen=True)
class ForestDrag:
    """The drag layer of one forest class: ``drag`` (kg/s) on the velocity, ``drag_torque``
    (kg m^2/s) on the angular velocity, acting while the centre of mass is less than
    ``drag_height`` (m, the effective height) above the terrain."""

    drag: float
    drag_height: float
    drag_torque: float = 0.0

    def __post_init__(self) -> None:
        for name in FOREST_FIELDS:
            value = float(getattr(self, name))
            if not math.isfinite(value) or value < 0.0:
                raise ValueError(f"forest {name} must be finite and not negative, got {value!r}")
            object.__setattr__(self, name, value)
        if self.drag_height <= 0.0:
            raise ValueError(f"forest drag_height must be positive, got {self.drag_height!r}")

    @classmethod
    def preset(cls, name: str) -> ForestDrag:
        """A published forest class by name (:data:`FOREST_PRESETS`)."""
        if name in FOREST_PRESETS:
            return FOREST_PRESETS[name]
        if name in UNSOURCED_FOREST_PRESETS:
            raise ValueError(
                f"forest preset {name!r} is not available: the published drag coefficients of "
                "open, medium and dense forest (Bartelt et al. 2016, as used by RocFall) are not "
                "entered in tumble until checked against their source; give the class's drag "
                "(kg/s), drag_height (m) and optionally drag_torque (kg m^2/s) instead"
            )
        raise ValueError(
            f"unknown forest preset {name!r}; give drag, drag_height (and drag_torque) instead"
        )


def _location(terrain: Any, mask: np.ndarray) -> str:
    j, i = np.argwhere(mask)[0]
    return f"x = {terrain.x0 + i * terrain.dx:.6g}, y = {terrain.y0 + j * terrain.dy:.6g}"


def class_codes(values: np.ndarray, terrain: Any, what: str) -> np.ndarray:
    """Integer class codes of a resampled map (``values`` float, NaN = nodata -> -1)."""
    defined = np.isfinite(values)
    if np.any(values[defined] != np.round(values[defined])):
        bad = defined & (values != np.round(values))
        raise ValueError(
            f"{what} must hold integer class codes; found {values[bad][0]!r} at "
            f"{_location(terrain, bad)}"
        )
    return np.where(defined, values, -1).astype(np.int64)


def _unknown(codes: np.ndarray, used: np.ndarray, known: Any, terrain: Any, what: str) -> None:
    present = np.unique(codes[used & (codes >= 0)])
    unknown = [int(c) for c in present if int(c) not in known]
    if unknown:
        raise ValueError(
            f"{what} holds class code(s) {', '.join(map(str, unknown))} with no entry in its "
            f"classes (first at {_location(terrain, used & (codes == unknown[0]))}); the classes "
            f"given are {', '.join(map(str, sorted(known))) or 'none'}"
        )


def _field_raster(table: dict[int, float], codes: np.ndarray, fill: float) -> float | np.ndarray:
    """The raster of one field from its per-class values (a number when all are equal)."""
    values = set(table.values())
    if len(values) == 1:
        return next(iter(values))
    out = np.full(codes.shape, fill)
    for code, value in table.items():
        out[codes == code] = value
    return out


def soil_from_class_map(values: np.ndarray, classes: Mapping[int, Soil], terrain: Any) -> Soil:
    """One :class:`Soil` on the DEM grid from a class map resampled onto it (``values``, float,
    NaN for nodata) and the soil of each class code (constant fields only).

    ValueError for a code present in the map without a class, and for a sample of the DEM
    (outside its nodata holes) that the map leaves without a class (nodata, or beyond the map).
    """
    what = "soil.map"
    codes = class_codes(values, terrain, what)
    used = ~np.isnan(terrain.heights)
    _unknown(codes, used, classes, terrain, what)
    missing = used & (codes < 0)
    if missing.any():
        raise ValueError(
            f"{what} leaves {int(missing.sum())} sample(s) of the DEM without a soil class "
            f"(nodata in the map, or beyond it), the first at {_location(terrain, missing)}; "
            "give those cells a class or extend the map over the DEM"
        )
    for code, soil in classes.items():
        if soil.rasters:
            raise ValueError(f"soil class {code} must have constant parameters, not rasters")
    present = [c for c in classes if np.any(codes == c)] or list(classes)[:1]
    fields: dict[str, float | np.ndarray] = {}
    for name in FIELDS:
        table = {c: float(getattr(classes[c], name)) for c in present}
        fields[name] = _field_raster(table, codes, table[present[0]])
    return Soil(**fields)


def with_forest(
    soil: Soil, values: np.ndarray, classes: Mapping[int, ForestDrag], terrain: Any
) -> Soil:
    """``soil`` with the drag layer of each forest class where the forest map (``values``
    resampled onto the DEM grid, NaN for nodata) holds it; class 0 and nodata are no forest.
    ValueError for a code present in the map without a class."""
    what = "forest.map"
    if 0 in classes:
        raise ValueError("forest class 0 means no forest; it takes no parameters")
    codes = class_codes(values, terrain, what)
    used = ~np.isnan(terrain.heights)
    _unknown(codes, used & (codes != 0), classes, terrain, what)
    forest = codes > 0
    if not forest.any():
        return soil
    shape = terrain.heights.shape
    drag = {}
    for name in FOREST_FIELDS:
        base = getattr(soil, name)
        raster = np.array(np.broadcast_to(base, shape), dtype=np.float64)
        for code, layer in classes.items():
            raster[codes == code] = getattr(layer, name)
        drag[name] = raster
    return dataclasses.replace(soil, **drag)


def drag_volume_warnings(c: Any, volumes: np.ndarray) -> list[str]:
    """The ``[soil]`` section ``c`` uses a category whose drag is that of a block of another
    volume than the run's rocks (``volumes``, m^3;
    :data:`tumble.rockfall.soil.DRAG_REFERENCE_VOLUME`), with its drag unchanged: a warning
    each, with the drag scaled to the median rock."""
    used: list[tuple[str, str]] = []
    if c.map is None:
        if c.preset in DRAG_REFERENCE_VOLUME and c.drag is None:
            used.append((c.preset, "soil.preset"))
    else:
        for code, entry in (c.classes or {}).items():
            name = entry if isinstance(entry, str) else entry.preset
            if name in DRAG_REFERENCE_VOLUME and (isinstance(entry, str) or entry.drag is None):
                used.append((name, f"soil.classes.{code}"))
    if not used or volumes.size == 0:
        return []
    low, median, high = (float(v) for v in np.percentile(volumes, (0, 50, 100)))
    warnings = []
    for name, key in used:
        reference = DRAG_REFERENCE_VOLUME[name]
        if low >= 0.8 * reference and high <= 1.25 * reference:
            continue
        drag = float(PRESETS[name]["drag"])
        scaled = drag * (median / reference) ** (2.0 / 3.0)
        warnings.append(
            f"{key}: {name}'s drag ({drag:g} kg/s) is that of a block of {reference:g} m^3, "
            f"and the rocks of this run are {low:.3g}-{high:.3g} m^3 (median {median:.3g}): "
            f"it is not scaled to them; the Authume validation scales it with the projected "
            f"area, (V / {reference:g} m^3)^(2/3): {scaled:.3g} kg/s for the median rock "
            "(give the class's drag)"
        )
    return warnings
