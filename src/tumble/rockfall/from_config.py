"""An ensemble from a validated run configuration (:class:`tumble.io.config.RockfallConfig`).

:func:`build_ensemble` turns the configuration's terrain (a built-in scenario or a DEM file),
rock, soil, release and solver sections into an :class:`~tumble.rockfall.ensemble.Ensemble`,
checking everything before any simulation: a ValueError names the offending key. Relative file
names left in the configuration are taken from ``base_dir``; :func:`tumble.io.config.load_config`
has already made the paths written in a TOML file absolute (relative to that file's folder), so
what remains relative came from the command line and belongs to the working directory.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tumble.rockfall.barriers import barriers_from_config
from tumble.rockfall.design import DesignFactors
from tumble.rockfall.ensemble.driver import (
    ENSEMBLE_OPTIONS,
    SAMPLE_EVERY,
    Ensemble,
    check_size,
)
from tumble.rockfall.model import Options
from tumble.rockfall.release import Release
from tumble.rockfall.rock import Rock
from tumble.rockfall.soil import FIELDS, PRESETS, Soil
from tumble.rockfall.terrain import Terrain

if TYPE_CHECKING:
    from tumble.io.config import RockfallConfig


def _terrain(config: RockfallConfig, base: Path) -> Terrain:
    if config.dem is not None:
        path = Path(config.dem)
        path = path if path.is_absolute() else base / path
        try:
            return Terrain.from_file(path)
        except (ValueError, OSError) as err:
            raise ValueError(f"dem: {err}") from None
    name = config.scenario or "slope40"
    try:
        return Terrain.scenario(name)
    except ValueError as err:
        raise ValueError(f"scenario: {err}") from None


def _rock(config: RockfallConfig, base: Path) -> Rock:
    c = config.rock
    try:
        if c.shape in ("eota221", "eota111"):
            if c.box is not None or c.file is not None:
                raise ValueError(f"rock.box and rock.file do not apply to rock.shape = {c.shape}")
            mass = 780.0 if c.mass is None and c.size is None else c.mass
            build = Rock.eota221 if c.shape == "eota221" else Rock.eota111
            return build(size=c.size, mass=mass, density=c.density)
        if c.size is not None:
            raise ValueError(f"rock.size applies to the EOTA shapes, not rock.shape = {c.shape}")
        if c.shape == "box":
            if c.box is None:
                raise ValueError("rock.box = [a, b, c] (m) is required with rock.shape = 'box'")
            return Rock.box(*c.box, density=c.density, mass=c.mass)
        if c.file is None:
            raise ValueError("rock.file is required with rock.shape = 'file'")
        path = Path(c.file)
        return Rock.from_file(path if path.is_absolute() else base / path, c.density, c.mass)
    except ValueError as err:
        message = str(err)
        raise ValueError(message if message.startswith("rock.") else f"rock: {message}") from None


def _soil(config: RockfallConfig, terrain: Terrain, base: Path) -> tuple[Soil, Terrain]:
    c = config.soil
    values = {}
    rasters = {}
    for name in FIELDS:
        value = getattr(c, name)
        if isinstance(value, str):
            path = Path(value)
            rasters[name] = path if path.is_absolute() else base / path
        elif value is not None:
            values[name] = value
    if c.preset is not None and c.preset not in PRESETS:
        raise ValueError(
            f"soil.preset: unknown preset {c.preset!r}; choose one of {sorted(PRESETS)}"
        )
    try:
        if rasters:
            terrain = terrain.with_soil(**rasters)
            values.update({name: terrain.soil[name] for name in rasters})
        if c.preset is not None:
            soil = Soil.preset(c.preset, **values)
        else:
            missing = [n for n in ("mu_min", "mu_max", "kappa", "beta") if n not in values]
            if missing:
                raise ValueError(
                    f"without soil.preset give {', '.join('soil.' + m for m in missing)}"
                )
            soil = Soil(**values)
    except (ValueError, OSError) as err:
        message = str(err)
        raise ValueError(message if message.startswith("soil") else f"soil: {message}") from None
    return soil, terrain


@dataclass(frozen=True)
class RunSetup:
    """What a configuration resolves to: the ensemble, and the release and input files it was
    built from (for the provenance)."""

    ensemble: Ensemble
    release: Release
    inputs: dict[str, Path]
    design: DesignFactors


def build_ensemble(config: RockfallConfig, base_dir: str | os.PathLike = ".") -> Ensemble:
    """An :class:`Ensemble` from a validated :class:`tumble.io.config.RockfallConfig`.

    Relative file names (DEM, rock file, soil rasters) are taken from ``base_dir``. Everything
    is checked here, before any simulation: a ValueError names the offending field.
    """
    return build_run(config, base_dir).ensemble


def build_run(config: RockfallConfig, base_dir: str | os.PathLike = ".") -> RunSetup:
    """:func:`build_ensemble`, with the resolved release and the input files (key -> path)."""
    base = Path(base_dir)
    terrain = _terrain(config, base)
    rock = _rock(config, base)
    soil, terrain = _soil(config, terrain, base)
    r = config.release
    fields = {
        "point": r.point,
        "line": r.line,
        "polygon": r.polygon,
        "height": r.height,
        "velocity": r.velocity,
        "speed_downslope": r.speed_downslope,
        "omega": r.omega,
        "orientation": r.orientation,
    }
    if config.dem is not None and all(fields[n] is None for n in ("point", "line", "polygon")):
        raise ValueError("release.point (or release.line, release.polygon) is required with a dem")
    release = Release.for_scenario(
        config.scenario or ("slope40" if config.dem is None else ""), **fields
    )
    check_size(config.rocks, solver_options(config), config.run.chunk_size)
    states = release.draw(terrain, config.rocks, config.seed)
    try:
        barriers = barriers_from_config(config.barrier, terrain, base)
        design = DesignFactors.from_config(config.design.model_dump())
    except (ValueError, OSError) as err:
        message = str(err)
        raise ValueError(
            message if message.startswith("barrier") else f"barrier: {message}"
        ) from None
    ensemble = Ensemble(
        terrain,
        rock,
        soil,
        states,
        options=solver_options(config),
        seed=config.seed,
        sample_every=config.output.sample_every or SAMPLE_EVERY,
        barriers=barriers,
    )
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
    return RunSetup(ensemble, release, inputs, design)


def _path(name: str, base: Path) -> Path:
    path = Path(name)
    return path if path.is_absolute() else base / path


def resolved_config(config: RockfallConfig, setup: RunSetup, run: dict[str, Any]) -> dict:
    """The configuration as it was used, every default written as its value (no nulls): the
    solver settings of the ensemble's options, the release with the scenario's defaults, the
    rock's mass, density and volume, the soil's values, and the ``run`` settings given (chunk
    size, threads, cluster). Keys that do not apply (a box size for an EOTA rock) are left out.
    """
    ensemble = setup.ensemble
    data = config.model_dump()
    options = ensemble.options
    data["solver"] = {name: getattr(options, name) for name in data["solver"]}
    data["scheme"], data["dt"], data["t_max"] = options.scheme, options.dt, options.t_max
    if data["dem"] is None and data["scenario"] is None:
        data["scenario"] = "slope40"
    release = dataclasses.asdict(setup.release)
    data["release"] = {k: _plain(v) for k, v in release.items() if v is not None}
    rock = ensemble.shapes[0]
    data["rock"] = {
        **{k: v for k, v in data["rock"].items() if v is not None},
        "mass": float(rock.mass),
        "density": float(rock.density),
        "volume_m3": float(rock.volume),
        "inertia_kg_m2": [float(v) for v in rock.inertia],
    }
    soil = {}
    for name in FIELDS:
        given = data["soil"].get(name)
        value = getattr(ensemble.soil, name)
        soil[name] = given if isinstance(given, str) else float(value)
    data["soil"] = {"preset": data["soil"].get("preset"), **soil}
    if data["soil"]["preset"] is None:
        del data["soil"]["preset"]
    data["output"]["sample_every"] = ensemble.sample_every
    data["barrier"] = [
        {k: v for k, v in entry.items() if v is not None} for entry in data["barrier"]
    ]
    design = setup.design.as_dict()
    if design.get("mass_kg") is None:
        design["mass_kg"] = "the largest rock mass crossing each barrier"
    data["design"] = design
    data["run"] = {**{k: v for k, v in data["run"].items() if v is not None}, **run}
    return {k: v for k, v in data.items() if v is not None}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def solver_options(config: RockfallConfig) -> Options:
    """The :class:`~tumble.rockfall.model.Options` of a configuration: ``scheme``, ``dt``,
    ``t_max`` and the ``[solver]`` section over the ensemble defaults."""
    solver = {k: v for k, v in config.solver.model_dump().items() if v is not None}
    return ENSEMBLE_OPTIONS.replace(
        scheme=config.scheme, dt=config.dt, t_max=config.t_max, **solver
    )
