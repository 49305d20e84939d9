"""An ensemble from a validated run configuration (:class:`tumble.io.config.RockfallConfig`).

:func:`build_ensemble` turns the configuration's terrain (a built-in scenario or a DEM file),
rock, soil, release and solver sections into an :class:`~tumble.rockfall.ensemble.Ensemble`,
checking everything before any simulation: a :class:`~tumble.errors.ConfigError` (a
``ValueError``) carries the offending key (``err.key``: ``"dem"``, ``"soil.mu_min"``,
``"barrier.0.file"``...) and its message names it; an input file that cannot be used is the
error's ``__cause__`` (a :class:`~tumble.errors.DataError`). Relative file names left in the
configuration are taken from ``base_dir``; :func:`tumble.io.config.load_config`
has already made the paths written in a TOML file absolute (relative to that file's folder), so
what remains relative came from the command line and belongs to the working directory.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.errors import ConfigError
from tumble.io.dem_checks import crs_label, metric_crs
from tumble.io.site_config import VolumeDistributionConfig
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble.driver import (
    ENSEMBLE_OPTIONS,
    SAMPLE_EVERY,
    Ensemble,
    check_size,
)
from tumble.rockfall.hazard.design import DesignFactors
from tumble.rockfall.hazard.sources import Site, default_site
from tumble.rockfall.hazard.zoning import ENERGY_LEVELS_KJ
from tumble.rockfall.release import Release
from tumble.rockfall.rock import Rock
from tumble.rockfall.site.areas import ReleaseAreas
from tumble.rockfall.site.barrier_files import BarrierSide, build_barriers
from tumble.rockfall.site.calibrated import (
    calibrated_classes,
    calibrated_map_draws,
    calibrated_soil,
    calibration_draws,
)
from tumble.rockfall.site.landcover import (
    ForestDrag,
    drag_volume_warnings,
    soil_from_class_map,
    with_forest,
)
from tumble.rockfall.site.release_sources import (
    frequency_record,
    inline_frequency,
    release_areas,
    with_inline_frequency,
)
from tumble.rockfall.site.rock_classes import (
    RockClass,
    VolumeDistribution,
    draw_classes,
    rock_from_section,
)
from tumble.rockfall.site.soil_draws import SoilDraws, map_soil_table, uniform_soil_table
from tumble.rockfall.site.soil_record import retired_warnings, soil_record
from tumble.rockfall.site.soil_uncertainty import describe
from tumble.rockfall.site.stems import not_a_number, stems_from_config
from tumble.rockfall.site.stratified import stratified_release
from tumble.rockfall.soil import FIELDS, PRESETS, SCENARIO_SOILS, Soil, unknown_preset
from tumble.rockfall.step.model import Options
from tumble.rockfall.terrain import Terrain

if TYPE_CHECKING:
    from tumble.io.config import RockfallConfig

#: the built-in terrain of a configuration that names neither a scenario nor a DEM
DEFAULT_SCENARIO = "slope40"


def _terrain(config: RockfallConfig, base: Path) -> Terrain:
    if config.dem is not None:
        if config.reproject is not None:
            try:
                metric_crs(config.reproject, "reproject")
            except ValueError as err:
                raise ConfigError(str(err), "reproject") from None
        if config.dem_crs is not None:
            try:
                crs_label(config.dem_crs)
            except ValueError as err:
                raise ConfigError(str(err), "dem_crs") from None
        try:
            return Terrain.from_file(
                _path(config.dem, base),
                reproject=config.reproject,
                nodata=config.dem_nodata,
                crs=config.dem_crs,
            )
        except (ValueError, OSError) as err:
            raise ConfigError(str(err), "dem") from err
    given = [k for k in ("dem_nodata", "dem_crs", "reproject") if getattr(config, k) is not None]
    if given:
        raise ConfigError(f"{given[0]} applies to a DEM file (dem = ...)", given[0])
    try:
        return Terrain.scenario(config.scenario or DEFAULT_SCENARIO)
    except ValueError as err:
        raise ConfigError(str(err), "scenario") from None


def build_rock(config: RockfallConfig, base: Path) -> Rock:
    """The rock of a configuration's ``[rock]`` section (a relative ``rock.file`` is taken from
    ``base``); ConfigError naming the offending ``rock.`` key."""
    return rock_from_section(config.rock, base, "rock")


def effective_preset(config: RockfallConfig) -> str | None:
    """The preset of a run's single soil: ``soil.preset``, or on a built-in terrain whose
    configuration names none, the soil of the paper it reproduces (:data:`SCENARIO_SOILS`)."""
    preset = config.soil.preset
    if config.dem is None and "preset" not in config.soil.model_fields_set:
        preset = SCENARIO_SOILS.get(config.scenario or DEFAULT_SCENARIO, preset)
    return preset


def _soil(config: RockfallConfig, terrain: Terrain, base: Path) -> tuple[Soil, Terrain]:
    c = config.soil
    if c.map is not None or c.classes is not None:
        return _soil_map(config, terrain, base), terrain
    values = {}
    rasters = {}
    for name in FIELDS:
        value = getattr(c, name)
        if isinstance(value, str):
            not_a_number(value, f"soil.{name}")
            path = Path(value)
            rasters[name] = path if path.is_absolute() else base / path
        elif value is not None:
            values[name] = value
    preset = effective_preset(config)
    if c.calibration is not None:
        return calibrated_soil(config, values), terrain
    if preset is not None and preset not in PRESETS:
        raise ConfigError(unknown_preset(preset), "soil.preset")
    missing = [n for n in ("mu_min", "mu_max", "kappa", "beta") if getattr(c, n) is None]
    if preset is None and missing:
        raise ConfigError(
            f"without soil.preset give {', '.join('soil.' + m for m in missing)}",
            f"soil.{missing[0]}",
        )
    for name, path in rasters.items():
        try:
            terrain = terrain.with_soil(**{name: path})
        except (ValueError, OSError) as err:
            raise ConfigError(str(err), f"soil.{name}") from err
        values[name] = terrain.soil[name]
    try:
        soil = Soil.preset(preset, **values) if preset is not None else Soil(**values)
    except ValueError as err:
        raise ConfigError(str(err), "soil") from None
    return soil, terrain


# --- soil and forest class maps (tumble.rockfall.site.landcover) ----------------------------------


def _class_map(name: str, terrain: Terrain, base: Path, what: str) -> Any:
    return terrain.resample(_path(name, base), what)


def _soil_map(config: RockfallConfig, terrain: Terrain, base: Path) -> Soil:
    """The soil of ``[soil] map`` and ``[soil.classes]``."""
    c = config.soil
    given = [f"soil.{n}" for n in FIELDS if getattr(c, n) is not None]
    if c.map is None or not c.classes:
        raise ConfigError(
            "soil.map and soil.classes go together: give both, or neither",
            "soil.map" if c.map is None else "soil.classes",
        )
    if given:
        raise ConfigError(
            f"with soil.map give the soil parameters per class in [soil.classes], not "
            f"{', '.join(given)}",
            given[0],
        )
    classes = soil_classes(config)
    try:
        values = _class_map(c.map, terrain, base, "soil.map")
        return soil_from_class_map(values, classes, terrain)
    except (ValueError, OSError) as err:
        raise ConfigError(str(err), "soil.map") from err


def soil_classes(config: RockfallConfig) -> dict[int, Soil]:
    """The soil of each class of ``[soil.classes]``; with ``soil.calibration``, the classes
    the calibration file gives (a calibration of a soil map's classes) take its best set."""
    c = config.soil
    classes = {}
    for code, entry in (c.classes or {}).items():
        try:
            if isinstance(entry, str):
                classes[code] = Soil.preset(entry)
            else:
                fields = entry.model_dump(exclude_none=True)
                fields.pop("uncertainty", None)  # drawn by _soil_uncertainty
                classes[code] = Soil.preset(fields.pop("preset"), **fields)
        except ValueError as err:
            raise ConfigError(str(err), f"soil.classes.{code}") from None
    if c.calibration is not None:
        classes.update(calibrated_classes(str(c.calibration), classes))
    return classes


def _soil_uncertainty(config: RockfallConfig, terrain: Terrain, base: Path) -> SoilDraws:
    """The soil table and each rock's row of ``soil.uncertainty`` (:mod:`.soil_draws`)."""
    c = config.soil
    if not isinstance(config.rocks, int):  # build_run resolved "auto" before
        raise ConfigError('rocks = "auto" is resolved by the run', "rocks")
    n, seed = config.rocks, config.seed
    if c.map is None:
        if c.uncertainty == "none":
            return SoilDraws()
        given = [f"soil.{f}" for f in FIELDS if getattr(c, f) is not None]
        if c.calibration is not None:
            return calibration_draws(config, given, lambda s: _forest(config, s, terrain, base))
        if c.preset is None or given:
            raise ConfigError(
                "soil.uncertainty draws from a category of the catalogue: give soil.preset and "
                f"no field of its own{' (' + ', '.join(given) + ')' if given else ''}",
                "soil.uncertainty",
            )
        if c.uncertainty == "category" and config.forest.map is not None:
            raise ConfigError(
                "soil.uncertainty = 'category' with a forest map is not supported (one forest "
                "raster per rock); use 'sets'",
                "soil.uncertainty",
            )
        try:
            soils, row, values = uniform_soil_table(
                c.preset, c.uncertainty, seed, n, lambda s: _forest(config, s, terrain, base)
            )
        except ValueError as err:
            raise ConfigError(str(err), "soil.uncertainty") from None
        return SoilDraws(
            soils, row, {"soil": values}, describe({"soil": (c.preset, c.uncertainty)})
        )
    if c.calibration is not None:
        grid = functools.cache(lambda: _class_map(str(c.map), terrain, base, "soil.map"))
        return calibrated_map_draws(
            config,
            soil_classes(config),
            lambda of: _forest(config, soil_from_class_map(grid(), of, terrain), terrain, base),
        )
    draws: dict[int, tuple[str, str]] = {}
    for code, entry in (c.classes or {}).items():
        preset = entry if isinstance(entry, str) else entry.preset
        mode = c.uncertainty
        if not isinstance(entry, str) and entry.uncertainty is not None:
            mode = entry.uncertainty
        if mode != "none" and not isinstance(entry, str):
            given = [f for f in FIELDS if getattr(entry, f) is not None]
            if given:
                raise ConfigError(
                    f"soil class {code} draws its parameters (uncertainty = {mode!r}): give no "
                    f"field of its own ({', '.join(given)})",
                    f"soil.classes.{code}.uncertainty",
                )
        draws[code] = (preset, mode)
    if all(mode == "none" for _, mode in draws.values()):
        return SoilDraws()
    key = "soil.uncertainty"
    try:
        values = _class_map(c.map, terrain, base, "soil.map")
        soils, row, per_class = map_soil_table(
            draws,
            lambda soil_of: _forest(
                config, soil_from_class_map(values, soil_of, terrain), terrain, base
            ),
            seed,
            n,
        )
    except ValueError as err:
        raise ConfigError(str(err), key) from None
    described = describe({f"class {code}": d for code, d in draws.items()})
    return SoilDraws(soils, row, {f"class {code}": v for code, v in per_class.items()}, described)


def _forest(config: RockfallConfig, soil: Soil, terrain: Terrain, base: Path) -> Soil:
    """``soil`` with the drag layers of ``[forest]`` (unchanged without a forest map)."""
    c = config.forest
    if c.map is None:
        if c.classes:
            raise ConfigError(
                "forest.classes needs forest.map, the forest class raster", "forest.classes"
            )
        return soil
    if not c.classes:
        raise ConfigError(
            "forest.map needs [forest.classes]: the drag layer of each class", "forest.classes"
        )
    classes = {}
    for code, entry in c.classes.items():
        try:
            if isinstance(entry, str):
                classes[code] = ForestDrag.preset(entry)
            else:
                classes[code] = ForestDrag(**entry.model_dump())
        except ValueError as err:
            raise ConfigError(str(err), f"forest.classes.{code}") from None
    try:
        values = _class_map(c.map, terrain, base, "forest.map")
        return with_forest(soil, values, classes, terrain)
    except (ValueError, OSError) as err:
        raise ConfigError(str(err), "forest.map") from err


def _landcover_inputs(config: RockfallConfig, base: Path) -> dict[str, Path]:
    inputs = {}
    f = config.forest
    named = [("soil.map", config.soil.map), ("forest.map", f.map), ("forest.trees", f.trees)]
    named += [(f"forest.{k}", getattr(f, k)) for k in ("stems_per_ha", "dbh_cm", "energy_factor")]
    for key, name in named:
        if isinstance(name, str):
            inputs[key] = _path(name, base)
    return inputs


@dataclass(frozen=True)
class RunSetup:
    """What a configuration resolves to: the ensemble, and the release and input files it was
    built from (for the provenance); how each barrier's uphill side was decided
    (``barrier_sides``, in the order of the ensemble's barriers) and the warnings about the
    barriers (``barrier_warnings``: release on a protected side, lines over nodata)."""

    ensemble: Ensemble
    release: Release
    inputs: dict[str, Path]
    design: DesignFactors
    site: Site
    classes: tuple[RockClass, ...] = ()
    barrier_sides: tuple[BarrierSide | None, ...] = ()
    barrier_warnings: tuple[str, ...] = ()
    #: what the release did to fit the rocks and the share of each place clipped
    #: (``summary.json["release"]``), and the warnings about it
    release_report: dict[str, Any] = dataclasses.field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: each rock's soil parameters when they are drawn (``soil.uncertainty``)
    soil_draws: SoilDraws = dataclasses.field(default_factory=lambda: SoilDraws())
    #: the presets of the run's soils and every value it used (:mod:`.soil_record`)
    soil_record: dict[str, Any] = dataclasses.field(default_factory=dict)


def build_ensemble(config: RockfallConfig, base_dir: str | os.PathLike = ".") -> Ensemble:
    """An :class:`Ensemble` from a validated :class:`tumble.io.config.RockfallConfig`.

    Relative file names (DEM, rock file, soil rasters) are taken from ``base_dir``. Everything
    is checked here, before any simulation: a ValueError names the offending field.
    """
    return build_run(config, base_dir).ensemble


def build_run(config: RockfallConfig, base_dir: str | os.PathLike = ".") -> RunSetup:
    """:func:`build_ensemble`, with the resolved release and the input files (key -> path)."""
    if not isinstance(config.rocks, int):
        raise ConfigError(
            'rocks = "auto" is resolved by the run (tumble.pipeline.RockfallRun), which builds '
            "a run of each round's number of rocks",
            "rocks",
        )
    base = Path(base_dir)
    terrain = _terrain(config, base)
    classes = _rock_classes(config, base)
    rock = build_rock(config, base) if classes is None else classes[0].shape
    soil, terrain = _soil(config, terrain, base)
    soil = _forest(config, soil, terrain, base)
    stems, forest_warnings = stems_from_config(config.forest, terrain, base)
    drawn_soils = _soil_uncertainty(config, terrain, base)
    r = config.release
    areas, class_id = stratified_release(
        r.sampling,
        release_areas(config, terrain, base, _rock_count(config)),
        classes,
        config.rocks,
        config.seed,
        terrain,
    )
    fields = {
        "point": r.point,
        "line": r.line,
        "polygon": r.polygon,
        "areas": areas,
        "height": r.height,
        "velocity": r.velocity,
        "speed_downslope": r.speed_downslope,
        "omega": r.omega,
        "orientation": r.orientation,
    }
    if config.dem is not None and all(
        fields[n] is None for n in ("point", "line", "polygon", "areas")
    ):
        raise ConfigError(
            "release.point (or release.line, release.polygon, release.areas, release.raster) is "
            "required with a dem",
            "release.point",
        )
    try:
        release = Release.for_scenario(
            config.scenario or (DEFAULT_SCENARIO if config.dem is None else ""), **fields
        )
    except ValueError as err:
        raise ConfigError(str(err), "release") from None
    check_size(config.rocks, solver_options(config), config.run.chunk_size)
    drawn = None if classes is None else draw_classes(classes, config.rocks, config.seed, class_id)
    if drawn is None:
        hulls = Hulls.of(rock)
    else:
        hulls = Hulls.of([c.shape for c in classes or ()], drawn.class_id, drawn.scale)
    try:
        states = release.draw(terrain, config.rocks, config.seed, hulls=hulls)
        clips = release.clips(terrain)
    except ValueError as err:
        raise ConfigError(str(err), "release") from err
    release_report = {
        "height_m": release.height,
        "clearance": "vertical",
        **states.report(),
        "clipped": [c.as_dict() for c in clips if c.share > 0.0],
    }
    warnings = [w for w in (c.warning() for c in clips) if w] + forest_warnings
    if release_report["adjusted"]:
        warnings.append(
            f"{release_report['adjusted']} of {config.rocks} rocks did not fit at "
            f"release.height = {release.height:g} m above the terrain below them (their hull "
            f"reached into a steep face or a crest) and were lifted until their hull cleared "
            f"the terrain by {release.height:g} m: median lift "
            f"{release_report['lift_median_m']:.3g} m, largest {release_report['lift_max_m']:.3g} m"
        )
    site_barriers = build_barriers(
        config.barrier, terrain, base, release.footprint() if config.barrier else None
    )
    try:
        design = DesignFactors.from_config(config.design.model_dump())
    except ValueError as err:
        raise ConfigError(str(err), "design") from None
    site = _site(config.rocks, rock.name, areas, classes, None if drawn is None else drawn.class_id)
    site = with_inline_frequency(site, inline_frequency(config, release, terrain))
    release_report["frequency"] = frequency_record(config)
    counting: dict[str, Any] = {}
    if site.zoning:
        counting = {
            "count_groups": site.source_of,
            "n_count_groups": len(site.source_names),
            "count_levels_kJ": ENERGY_LEVELS_KJ,
        }
    counting["reach_groups"] = site.source_of
    ensemble = Ensemble(
        terrain,
        rock if classes is None else [c.shape for c in classes],
        soil,
        states,
        shape_id=None if drawn is None else drawn.class_id,
        scale=None if drawn is None else drawn.scale,
        mass=None if drawn is None else drawn.mass,
        options=solver_options(config),
        seed=config.seed,
        sample_every=config.output.sample_every or SAMPLE_EVERY,
        barriers=site_barriers.barriers,
        forest=stems,
        soils=drawn_soils.soils,
        soil_row=drawn_soils.row,
        keep_visits=config.output.visits,
        **counting,
    )
    warnings += drag_volume_warnings(config.soil, ensemble.volume)
    soils = soil_record(config, effective_preset(config))
    warnings += retired_warnings(soils)
    inputs = {}
    if config.dem is not None:
        inputs["dem"] = _path(config.dem, base)
    if config.rock.file is not None:
        inputs["rock.file"] = _path(config.rock.file, base)
    for name in FIELDS:
        value = getattr(config.soil, name)
        if isinstance(value, str):
            inputs[f"soil.{name}"] = _path(value, base)
    for k, entry in enumerate(config.barrier):
        if entry.file is not None:
            inputs[f"barrier.{k}.file"] = _path(entry.file, base)
    inputs.update(_landcover_inputs(config, base))
    inputs.update(_site_inputs(config, base))
    return RunSetup(
        ensemble,
        release,
        inputs,
        design,
        site,
        tuple(classes or ()),
        site_barriers.sides,
        site_barriers.warnings,
        release_report,
        tuple(warnings),
        drawn_soils,
        soils,
    )


def _rock_count(config: RockfallConfig) -> int:
    if not isinstance(config.rocks, int):
        raise ConfigError('rocks = "auto" is resolved by the run', "rocks")
    return config.rocks


def _path(name: str, base: Path) -> Path:
    path = Path(name)
    return path if path.is_absolute() else base / path


def solver_options(config: RockfallConfig) -> Options:
    """The :class:`~tumble.rockfall.step.model.Options` of a configuration: ``scheme``, ``dt``,
    ``t_max`` and the ``[solver]`` section over the ensemble defaults."""
    solver = {k: v for k, v in config.solver.model_dump().items() if v is not None}
    return ENSEMBLE_OPTIONS.replace(
        scheme=config.scheme, dt=config.dt, t_max=config.t_max, **solver
    )


# --- release areas and rock classes (site.areas, site.rock_classes, hazard.sources) ---------


def _rock_classes(config: RockfallConfig, base: Path) -> list[RockClass] | None:
    """The classes of ``[[rock.classes]]``, or None without them."""
    from types import SimpleNamespace

    if not config.rock.classes:
        return None
    classes = []
    for k, c in enumerate(config.rock.classes):
        key = f"rock.classes.{k}"
        distribution = None
        volume = c.volume if isinstance(c.volume, float | int) else None
        try:
            if isinstance(c.volume, VolumeDistributionConfig):
                v = c.volume
                distribution = VolumeDistribution(
                    v.distribution, v.median, v.sigma, v.exponent, v.min, v.max
                )
            section = SimpleNamespace(
                shape=c.shape,
                mass=c.mass,
                size=c.size,
                density=c.density,
                box=c.box,
                file=c.file,
                volume=volume,
            )
            shape = rock_from_section(section, base, key)
            classes.append(RockClass(c.name, shape, float(c.share), distribution))
        except ValueError as err:
            raise ConfigError(
                f"{err} (rock class {c.name!r})",
                err.key if isinstance(err, ConfigError) else key,
            ) from err
    return classes


def _site(
    n: int,
    shape_name: str,
    areas: ReleaseAreas | None,
    classes: list[RockClass] | None,
    class_id: np.ndarray | None,
) -> Site:
    """Source and class of every one of the ``n`` rocks (``class_id``: the drawn classes)."""
    base = default_site(n, "release", shape_name)
    if areas is None and classes is None:
        return base
    names, frequency, source_of = base.source_names, base.source_frequency, base.source_of
    if areas is not None:
        names, frequency = areas.names, areas.frequencies
        source_of = np.asarray(areas.source_of(np.arange(n)), dtype=np.int64)
    class_names, shares, class_of = base.class_names, base.class_share, base.class_of
    if classes is not None and class_id is not None:
        class_names = tuple(c.name for c in classes)
        shares = tuple(c.share for c in classes)
        class_of = np.ascontiguousarray(class_id, dtype=np.int64)
    return Site(names, frequency, source_of, class_names, shares, class_of, areas is not None)


def _site_inputs(config: RockfallConfig, base: Path) -> dict[str, Path]:
    """Input files of the release areas and rock classes (for the provenance)."""
    inputs = {}
    for key in ("areas", "raster"):
        value = getattr(config.release, key)
        if value is not None:
            inputs[f"release.{key}"] = _path(value, base)
    for k, c in enumerate(config.rock.classes or []):
        if c.file is not None:
            inputs[f"rock.classes.{k}.file"] = _path(c.file, base)
    return inputs
