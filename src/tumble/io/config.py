"""Configuration of rockfall runs: TOML files validated with pydantic, ``key=value`` overrides.

A run is described by one TOML document (every key optional; defaults below)::

    scenario = "slope40"        # a built-in terrain, or
    # dem = "terrain.tif"       # a DEM file (GeoTIFF or ESRI ASCII)
    rocks = 1000
    scheme = "implicit"         # or "explicit"
    seed = 1
    dt = 0.002                  # s
    t_max = 60.0                # s

    [rock]
    shape = "eota221"           # eota221 | eota111 | box | file
    mass = 780.0                # kg (or size = 0.93 for the EOTA shapes)
    # box = [2.0, 1.0, 0.5]     # m, with shape = "box"
    # file = "rock.stl"         # mesh (STL, PLY, OBJ, ...) or XYZ point list, shape = "file"
    # density = 2740.0          # kg/m^3

    [soil]
    preset = "medium"           # Lu et al. 2019: mu_min 0.55, mu_max 2.0, kappa 3, beta 185
    # mu_min = 0.4              # a number, or a raster file on the DEM grid
    # restitution = 0.0

    [release]
    point = [10.0, 0.0]         # or line = [[x1, y1], [x2, y2]], or polygon = [[x, y], ...]
    height = 1.5                # centre of mass above the terrain, m
    speed_downslope = 1.0       # m/s, or velocity = [vx, vy, vz]
    omega = [0.0, 0.0, 0.0]     # rad/s, body frame
    orientation = "random"      # or [w, x, y, z]

    [solver]                    # pgs_tol, pgs_max_iter, newton_tol, newton_max_iter,
                                # rest_speed, rest_time, gravity
    [output]                    # sample_every, trajectories, trajectory_every, ascii, figures
    [run]                       # chunk_size, threads, dask

File names in the file (``dem``, ``rock.file``, soil rasters) are relative to the file's folder,
so ``tumble rockfall run --config site/run.toml`` works from any folder; those given on the
command line are relative to the working directory. Unknown keys are refused with a message that
names them (a misspelt key never silently falls
back to a default). Overrides ``section.key=value`` (dotted keys, the value in TOML syntax, or a
bare word taken as a string) are applied on top of the file, e.g. ``release.height=2`` or
``rock.box=[2,1,0.5]``. Release defaults of a built-in scenario apply only to the fields the
configuration leaves unset (``None`` here); this module knows nothing of the physics, it only
checks types and ranges.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegativeFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(ge=1)]
Pair = tuple[FiniteFloat, FiniteFloat]
Triple = tuple[FiniteFloat, FiniteFloat, FiniteFloat]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RockConfig(_Section):
    shape: Literal["eota221", "eota111", "box", "file"] = "eota221"
    mass: PositiveFloat | None = None
    size: PositiveFloat | None = None
    density: PositiveFloat | None = None
    box: tuple[PositiveFloat, PositiveFloat, PositiveFloat] | None = None
    file: str | None = None


#: a soil field: a number or the path of a raster on the DEM grid
SoilValue = NonNegativeFloat | str


class SoilConfig(_Section):
    preset: str | None = "medium"
    mu_min: SoilValue | None = None
    mu_max: SoilValue | None = None
    kappa: SoilValue | None = None
    beta: SoilValue | None = None
    restitution: SoilValue | None = None
    drag: SoilValue | None = None
    drag_torque: SoilValue | None = None
    drag_height: SoilValue | None = None


class ReleaseConfig(_Section):
    point: Pair | None = None
    line: tuple[Pair, Pair] | None = None
    polygon: list[Pair] | None = None
    height: PositiveFloat | None = None
    velocity: Triple | None = None
    speed_downslope: NonNegativeFloat | None = None
    omega: Triple | None = None
    orientation: Literal["random"] | tuple[FiniteFloat, FiniteFloat, FiniteFloat, FiniteFloat] = (
        "random"
    )


class SolverConfig(_Section):
    pgs_tol: PositiveFloat | None = None
    pgs_max_iter: PositiveInt | None = None
    newton_tol: PositiveFloat | None = None
    newton_max_iter: PositiveInt | None = None
    rest_speed: NonNegativeFloat | None = None
    rest_time: PositiveFloat | None = None
    gravity: FiniteFloat | None = None


class OutputConfig(_Section):
    sample_every: PositiveInt | None = None
    trajectories: Annotated[int, Field(ge=0)] = 10
    trajectory_every: PositiveInt = 25
    ascii: bool = False
    figures: bool = True


class RunConfig(_Section):
    chunk_size: PositiveInt | None = None
    threads: PositiveInt | None = None
    dask: str | None = None


class RockfallConfig(_Section):
    """The whole run (module docstring)."""

    scenario: str | None = None
    dem: str | None = None
    rocks: PositiveInt = 100
    scheme: Literal["explicit", "implicit"] = "implicit"
    seed: Annotated[int, Field(ge=0)] = 0
    dt: PositiveFloat = 0.002
    t_max: PositiveFloat = 60.0
    rock: RockConfig = RockConfig()
    soil: SoilConfig = SoilConfig()
    release: ReleaseConfig = ReleaseConfig()
    solver: SolverConfig = SolverConfig()
    output: OutputConfig = OutputConfig()
    run: RunConfig = RunConfig()

    @field_validator("dem")
    @classmethod
    def _dem_text(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("dem must be a file path")
        return value

    def physics(self) -> dict:
        """The part that decides the numbers (everything except ``output`` and ``run``)."""
        return self.model_dump(exclude={"output", "run"})


def _key_names(model: type[BaseModel], loc: tuple) -> list[str]:
    """Allowed keys at the level ``loc`` (without its last element) of the schema."""
    current: Any = model
    for part in loc[:-1]:
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        current = fields[part].annotation
    fields = getattr(current, "model_fields", None)
    return sorted(fields) if fields else []


def _message(err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if isinstance(p, str))
        key = ".".join(str(p) for p in e["loc"])
        if e["type"] == "extra_forbidden":
            allowed = _key_names(RockfallConfig, loc)
            where = ".".join(loc[:-1]) or "the top level"
            lines.append(
                f"unknown key {key!r}"
                + (f" (allowed in {where}: {', '.join(allowed)})" if allowed else "")
            )
        else:
            lines.append(f"{key}: {e['msg']} (got {e.get('input')!r})")
    return "invalid configuration: " + "; ".join(lines)


def validate(data: dict) -> RockfallConfig:
    """A :class:`RockfallConfig` from a plain dict; ValueError naming every bad key."""
    try:
        return RockfallConfig.model_validate(data)
    except ValidationError as err:
        raise ValueError(_message(err)) from None


def read_toml(path: str | os.PathLike) -> dict:
    """The TOML document at ``path`` as a dict; ValueError for a missing or malformed file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config file {str(path)!r} does not exist")
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"config file {path}: {err}") from None


def parse_value(text: str) -> Any:
    """A TOML value (number, boolean, string, array, inline table) or else the bare text."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """A copy of ``data`` with every ``dotted.key=value`` of ``overrides`` set."""
    out = _copy(data)
    for item in overrides:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key or any(not part for part in key.split(".")):
            raise ValueError(f"override {item!r} must look like section.key=value")
        parts = key.split(".")
        node = out
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ValueError(f"override {item!r}: {part!r} is a value, not a section")
            node = child
        value = parse_value(text.strip())
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"override {item!r}: the value must be finite")
        node[parts[-1]] = value
    return out


def set_key(data: dict, key: str, value: Any) -> dict:
    """A copy of ``data`` with ``dotted.key`` set to ``value`` (sections created as needed)."""
    out = _copy(data)
    parts = key.split(".")
    node = out
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


#: keys whose string values are file names: resolved against the folder of the TOML file that
#: gives them (a soil field given as a string is the file name of a raster)
PATH_KEYS = (
    ("dem",),
    ("rock", "file"),
    *(("soil", name) for name in SoilConfig.model_fields if name != "preset"),
)


def resolve_paths(data: dict, base: str | os.PathLike) -> dict:
    """A copy of ``data`` with every relative file name of :data:`PATH_KEYS` made absolute
    against ``base`` (the folder of the configuration file)."""
    out = _copy(data)
    for key in PATH_KEYS:
        node: Any = out
        for part in key[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        value = node.get(key[-1])
        if isinstance(value, str) and value.strip() and not Path(value).is_absolute():
            node[key[-1]] = str(Path(base).resolve() / value)
    return out


def _copy(data: dict) -> dict:
    return {k: _copy(v) if isinstance(v, dict) else v for k, v in data.items()}


def load_config(
    path: str | os.PathLike | None = None,
    settings: dict[str, Any] | None = None,
    overrides: list[str] | None = None,
) -> RockfallConfig:
    """The configuration of a run: the file at ``path`` (optional), then ``settings`` (dotted
    keys to values, e.g. from command-line options; None values are skipped), then the
    ``key=value`` ``overrides``; validated once at the end.

    File names written in the TOML file are relative to the file's folder; those given in
    ``settings`` or ``overrides`` (the command line) stay as they are, relative to the working
    directory."""
    data = resolve_paths(read_toml(path), Path(path).parent) if path is not None else {}
    settings = settings or {}
    # a terrain given on the command line replaces the file's terrain of the other kind
    if settings.get("dem") is not None:
        data.pop("scenario", None)
    if settings.get("scenario") is not None:
        data.pop("dem", None)
    for key, value in settings.items():
        if value is not None:
            data = set_key(data, key, value)
    data = apply_overrides(data, overrides or [])
    config = validate(data)
    if config.scenario is not None and config.dem is not None:
        raise ValueError("invalid configuration: give scenario or dem, not both")
    return config
