"""What a calibration takes of a configuration (:class:`Site`) and which soil fields it sets
(:class:`FreeField`, ``--free NAME=LO:HI``).

A free field is a field of the soil as ``tumble rockfall soils`` names it
(``rolling_resistance``), set everywhere, or on a configuration with a soil map the field of one
class, ``CODE.FIELD`` (``2.rolling_resistance``), set on the DEM samples of that class. A field
of a class that a forest class covers keeps the forest's drag there (``drag``, ``drag_torque``,
``drag_height``: the forest's drag layer takes the place of the soil's,
:mod:`tumble.rockfall.site.landcover`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tumble.errors import ConfigError
from tumble.io.config import ReleaseConfig, RockfallConfig
from tumble.rockfall.site.landcover import FOREST_FIELDS, class_codes
from tumble.rockfall.soil import FIELDS, Soil
from tumble.rockfall.soil_values import soil_values

#: the free fields without ``--free``: those the Authume calibration told apart on its data
#: (``tumble.validation.authume.calibration``): the rolling resistance and the friction
DEFAULT_FREE = ("rolling_resistance=0:0.4", "mu_min=0.2:0.8")


@dataclass(frozen=True)
class FreeField:
    """A soil field calibrated over ``[low, high]``: ``name`` as ``--free`` gives it,
    ``FIELD`` or ``CODE.FIELD`` (module docstring)."""

    name: str
    low: float
    high: float

    @property
    def field(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def code(self) -> int | None:
        """The soil class the field is set on, or None: everywhere."""
        code, dot, _ = self.name.rpartition(".")
        return int(code) if dot else None

    def text(self) -> str:
        return f"{self.name}={self.low:g}:{self.high:g}"


def parse_free(texts: Sequence[str]) -> tuple[FreeField, ...]:
    """``NAME=LO:HI`` per free field; ConfigError naming the bad one (``--free``)."""
    out: list[FreeField] = []
    for text in texts:
        name, sep, bounds = text.partition("=")
        name = name.strip()
        code, dot, field_name = name.rpartition(".")
        if dot and not code.strip().lstrip("-").isdigit():
            raise ConfigError(
                f"--free {text}: {code!r} is not a soil class code; give CODE.FIELD with the "
                f"integer code of a class of [soil.classes] (e.g. 2.{field_name}=0:0.4)",
                "--free",
            )
        if field_name not in FIELDS:
            raise ConfigError(
                f"--free {text}: unknown soil field {field_name!r}; the fields (as tumble "
                f"rockfall soils prints them): {', '.join(FIELDS)}",
                "--free",
            )
        if dot:
            name = f"{int(code)}.{field_name}"
        low_text, colon, high_text = bounds.partition(":")
        try:
            low, high = float(low_text), float(high_text)
        except ValueError:
            low = high = math.nan
        if not (sep and colon and math.isfinite(low) and math.isfinite(high) and 0 <= low < high):
            raise ConfigError(
                f"--free {text}: give {name}=LO:HI with 0 <= LO < HI (e.g. {name}=0:0.4)",
                "--free",
            )
        if name in (f.name for f in out):
            raise ConfigError(f"--free {text}: {name} is given twice", "--free")
        out.append(FreeField(name, low, high))
    if not out:
        raise ConfigError("--free needs at least one NAME=LO:HI", "--free")
    return tuple(out)


@dataclass(frozen=True, eq=False)
class Site:
    """What a calibration takes of a configuration: the terrain, the soil the free fields are
    set on, the solver options, the forest, the rock classes and the DEM's CRS; with a soil
    map, ``soil_codes`` (the class code of each DEM sample, -1 none), ``forest_cells`` (the
    samples whose drag a forest class sets, or None) and ``soil_classes`` (code -> every field
    of the class's soil)."""

    terrain: Any
    soil: Soil
    options: Any
    forest: Any
    classes: tuple[Any, ...]
    crs: Any
    soil_codes: np.ndarray | None = None
    forest_cells: np.ndarray | None = None
    soil_classes: dict[int, dict[str, Any]] = field(default_factory=dict)

    def check_free(self, free: Sequence[FreeField]) -> None:
        """ConfigError for a field of a class the configuration has not (or without a map)."""
        for f in free:
            if f.code is None:
                continue
            if not self.soil_classes:
                raise ConfigError(
                    f"--free {f.text()}: a field per soil class needs a configuration with "
                    f"[soil] map and [soil.classes]; this one has a single soil: give "
                    f"--free {f.field}=...",
                    "--free",
                )
            if f.code not in self.soil_classes:
                raise ConfigError(
                    f"--free {f.text()}: soil class {f.code} is not in [soil.classes] (the "
                    f"classes: {', '.join(map(str, sorted(self.soil_classes)))})",
                    "--free",
                )

    def soil_with(self, values: dict[str, float]) -> Soil:
        """The site's soil with ``values`` (free field name -> value) set; where ``mu_min``
        comes out above ``mu_max`` (a free ``mu_min`` above the soil's ``mu_max``, or both free
        and drawn so), ``mu_max`` is raised to it: the friction never falls with the
        slippage."""
        fields: dict[str, Any] = {n: getattr(self.soil, n) for n in FIELDS}
        for name, value in values.items():
            code, dot, field_name = name.rpartition(".")
            if not dot:
                fields[field_name] = value
                continue
            assert self.soil_codes is not None
            raster = np.array(np.broadcast_to(fields[field_name], self.soil_codes.shape))
            cells = self.soil_codes == int(code)
            if field_name in FOREST_FIELDS and self.forest_cells is not None:
                cells &= ~self.forest_cells
            raster[cells] = value
            fields[field_name] = raster
        fields["mu_max"] = np.maximum(fields["mu_max"], fields["mu_min"])
        if np.ndim(fields["mu_max"]) == 0:
            fields["mu_max"] = float(fields["mu_max"])
        return Soil(**fields)

    def values_of(self, values: dict[str, float]) -> dict[str, Any]:
        """Every field of the soil of ``values`` as ``tumble rockfall soils`` names it: one
        soil's, or on a map ``{"classes": {code: fields}}`` with each class's fields."""
        if not self.soil_classes:
            return soil_values(self.soil_with(values))
        classes = {}
        for code, base in self.soil_classes.items():
            fields = dict(base)
            for name, value in values.items():
                c, dot, field_name = name.rpartition(".")
                if not dot or int(c) == code:
                    fields[field_name] = value
            fields["mu_max"] = max(fields["mu_max"], fields["mu_min"])
            classes[code] = fields
        return {"classes": classes}


def site_of(config: RockfallConfig) -> Site:
    """The :class:`Site` of a configuration; its release is replaced by the observations."""
    from tumble.rockfall.site.from_config import build_run, soil_classes

    if config.soil.uncertainty != "none":
        raise ConfigError(
            "a calibration sets the soil's fields: give soil.uncertainty = 'none'",
            "soil.uncertainty",
        )
    terrain_only = config.model_copy(
        update={"release": ReleaseConfig(point=_a_point(config)), "rocks": 1, "barrier": []}
    )
    setup = build_run(terrain_only)
    ensemble = setup.ensemble
    terrain = ensemble.terrain
    site = Site(
        terrain,
        ensemble.soil,
        ensemble.options,
        ensemble.forest,
        tuple(setup.classes or ()),
        getattr(terrain, "crs", None),
    )
    if config.soil.map is None:
        return site
    codes = class_codes(terrain.resample(config.soil.map, "soil.map"), terrain, "soil.map")
    forest = None
    if config.forest.map is not None:
        values = terrain.resample(config.forest.map, "forest.map")
        forest = class_codes(values, terrain, "forest.map") > 0
    classes = {code: soil_values(soil) for code, soil in soil_classes(config).items()}
    return dataclasses.replace(site, soil_codes=codes, forest_cells=forest, soil_classes=classes)


def _a_point(config: RockfallConfig) -> tuple[float, float] | None:
    """A release point on the configuration's terrain, only so that it compiles."""
    if config.dem is None:
        return None
    from tumble.rockfall.terrain import Terrain

    terrain = Terrain.from_file(config.dem, nodata=config.dem_nodata, crs=config.dem_crs)
    cells = np.argwhere(terrain.valid_cells)
    # the valid cell nearest the middle of the grid, away from the edges
    middle = np.array(terrain.valid_cells.shape) / 2.0
    j, i = cells[int(np.argmin(((cells - middle) ** 2).sum(axis=1)))]
    return (terrain.x0 + (i + 0.5) * terrain.dx, terrain.y0 + (j + 0.5) * terrain.dy)
