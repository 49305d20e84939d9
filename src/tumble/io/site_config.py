"""Configuration keys of a real site (part of :mod:`tumble.io.config`): release areas and rock
classes. Only types and ranges are checked here; files and physics are the engine's
(:mod:`tumble.rockfall.site.areas`, :mod:`tumble.rockfall.site.rock_classes`). File names given in a
configuration file (``release.areas``, ``release.raster``, ``rock.classes.file``) are relative to
its folder, as every file name of :mod:`tumble.io.config`.

Release areas, keys of ``[release]`` (instead of ``point``, ``line`` or ``polygon``)::

    areas = "release.gpkg"      # polygons of a GeoPackage, GeoJSON or Shapefile (CRS checked,
                                # transformed to the DEM's)
    layer = "areas"             # the file's layer (default: its first)
    name_field = "name"         # the attribute naming each area (default area_1, area_2, ...)
    frequency_per_ha = 0.01     # onset events per year and hectare of release area (zoning),
    # frequency_per_ha_field = "f_ha"   # or per hectare from each area's attribute, or
    # frequency_field = "freq"  # per year and area: a scenario event anywhere in the area
    weight_field = "weight"     # the split of the rocks over the areas (default: by area)
    # raster = "sources.tif"    # or a source raster: cells release in proportion to their value

A typed-in ``release.polygon`` or a source raster takes ``frequency_per_ha``, a ``release.line``
``frequency_per_100m`` (onset events per year and 100 m of the line); one frequency key at most
(:mod:`tumble.rockfall.site.release_sources`).

Rock classes, ``[[rock.classes]]`` tables (instead of ``[rock]``'s single-rock keys)::

    [[rock.classes]]
    name = "small"              # required, unique
    share = 0.3                 # of the rocks; the shares sum to 1 (within 1e-6)
    shape = "eota111"           # as rock.shape (box, file with their keys)
    mass = 200.0                # kg; or size, or volume = 0.07 (m^3), or a volume distribution:
    # volume = { distribution = "lognormal", median = 0.1, sigma = 0.5 }
    # volume = { distribution = "power_law", exponent = 0.5, min = 0.05, max = 2.0 }
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, model_validator

PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegativeFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]

#: tolerance on the sum of the shares of the rock classes
SHARE_TOLERANCE = 1e-6

#: file names of these keys are relative to the configuration file (``tumble.io.config.PATH_KEYS``)
SITE_PATH_KEYS = (("release", "areas"), ("release", "raster"), ("rock", "classes", "*", "file"))


class _Section(BaseModel):
    """As ``tumble.io.config._Section``: unknown keys refused, values frozen, strict types."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ReleaseAreaKeys(_Section):
    """The keys of ``[release]`` that give release areas (module docstring)."""

    areas: str | None = None
    raster: str | None = None
    layer: str | None = None
    name_field: str | None = None
    frequency_field: str | None = None
    frequency_per_ha: NonNegativeFloat | None = None
    frequency_per_ha_field: str | None = None
    frequency_per_100m: NonNegativeFloat | None = None
    frequency_per_100m_field: str | None = None
    weight_field: str | None = None
    #: how the rocks are drawn over the release: "random" (plain) or "stratified"
    #: (:mod:`tumble.rockfall.release.strata`)
    sampling: Literal["random", "stratified"] = "random"


class VolumeDistributionConfig(_Section):
    """A distribution of block volume (m^3) of a rock class: ``distribution = "lognormal"`` with
    ``median`` (m^3) and ``sigma`` (of ln V), or ``"power_law"`` with ``exponent`` (b of the
    exceedance count N(>V) ~ V^-b), ``min`` and ``max`` (m^3)."""

    distribution: Literal["lognormal", "power_law"]
    median: PositiveFloat | None = None
    sigma: PositiveFloat | None = None
    exponent: PositiveFloat | None = None
    min: PositiveFloat | None = None
    max: PositiveFloat | None = None

    @model_validator(mode="after")
    def _parameters(self) -> VolumeDistributionConfig:
        needed = (
            ("median", "sigma") if self.distribution == "lognormal" else ("exponent", "min", "max")
        )
        other = (
            ("exponent", "min", "max") if self.distribution == "lognormal" else ("median", "sigma")
        )
        missing = [k for k in needed if getattr(self, k) is None]
        if missing:
            raise ValueError(f"a {self.distribution} volume needs {', '.join(missing)}")
        extra = [k for k in other if getattr(self, k) is not None]
        if extra:
            raise ValueError(f"{', '.join(extra)} do not apply to a {self.distribution} volume")
        if self.distribution == "power_law" and not self.min < self.max:  # type: ignore[operator]
            raise ValueError(f"a power_law volume needs min < max, got {self.min} and {self.max}")
        return self


class RockClassConfig(_Section):
    """One ``[[rock.classes]]`` table: ``name``, ``share`` of the rocks, a shape as in ``[rock]``
    and its size: ``mass`` (kg), ``size`` (EOTA), ``volume`` (m^3, a number, or a table
    :class:`VolumeDistributionConfig` of a volume distribution); ``density`` (kg/m^3)."""

    name: str
    share: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]
    shape: Literal["eota221", "eota111", "box", "file"] = "eota221"
    mass: PositiveFloat | None = None
    volume: PositiveFloat | VolumeDistributionConfig | None = None
    size: PositiveFloat | None = None
    density: PositiveFloat | None = None
    box: Annotated[tuple[PositiveFloat, PositiveFloat, PositiveFloat], Strict(False)] | None = None
    file: str | None = None

    @model_validator(mode="after")
    def _one_size(self) -> RockClassConfig:
        given = [k for k in ("mass", "volume", "size") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(
                f"rock class {self.name!r}: give one of mass, volume, size; got {', '.join(given)}"
            )
        if not self.name.strip():
            raise ValueError("a rock class needs a non-empty name")
        return self


def check_classes(classes: Sequence[RockClassConfig] | None, beside: Sequence[str] = ()) -> None:
    """ValueError unless the classes have unique names and shares summing to 1, and no
    single-rock key of ``[rock]`` (``beside``: the keys given) is given beside them."""
    if classes is None:
        return
    if not classes:
        raise ValueError("rock.classes is empty; give at least one [[rock.classes]] table")
    names = [c.name for c in classes]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"rock class names must be unique; repeated: {', '.join(repeated)}")
    total = math.fsum(c.share for c in classes)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        shares = " + ".join(f"{c.share:g}" for c in classes)
        raise ValueError(
            f"the shares of rock.classes sum to {total:.6g} ({shares}); they must sum to 1"
        )
    if beside:
        raise ValueError(
            f"rock.{', rock.'.join(beside)} cannot be given with rock.classes; give the shape and "
            "size of each class in its [[rock.classes]] table"
        )


class RockClassesKey(_Section):
    """The ``classes`` key of ``[rock]``: ``[[rock.classes]]`` tables, checked by
    :func:`check_classes` against the other keys given in ``[rock]``."""

    classes: list[RockClassConfig] | None = None

    @model_validator(mode="after")
    def _classes(self) -> RockClassesKey:
        # a key counts as given beside the classes when it differs from its default, so that a
        # configuration written out whole (every key, e.g. a run's provenance) reads back
        fields = type(self).model_fields
        given = [
            k
            for k in self.model_fields_set
            if k != "classes" and getattr(self, k) != fields[k].default
        ]
        check_classes(self.classes, sorted(given))
        return self
