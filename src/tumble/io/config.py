"""Configuration of rockfall runs: TOML files validated with pydantic, ``key=value`` overrides.

A run is described by one TOML document (every key optional; defaults below)::

    scenario = "slope40"        # a built-in terrain, or
    # dem = "terrain.tif"       # a DEM file (GeoTIFF or ESRI ASCII), projected CRS in metres
    # reproject = "EPSG:32632"  # or warp a DEM in degrees or feet to this CRS first
    # dem_nodata = -9999        # a fill value the DEM file does not tag as nodata
    # dem_crs = "EPSG:31254"    # the CRS of the DEM's coordinates, if its label is missing or wrong
    rocks = 1000
    scheme = "implicit"         # or "explicit"
    seed = 1
    dt = 0.002                  # s
    t_max = 60.0                # s

    [rock]
    shape = "eota221"           # eota221 | eota111 | box | file
    mass = 780.0                # kg (or size = 0.93 for the EOTA shapes, or volume = 0.28, m^3)
    # box = [2.0, 1.0, 0.5]     # m, with shape = "box"
    # file = "rock.stl"         # mesh (STL, PLY, OBJ, ...) or XYZ point list, shape = "file"
    # density = 2740.0          # kg/m^3

    [soil]
    preset = "medium"           # Lu et al. 2019 with its scar layer; mu_r 0.1 (Authume)
    # mu_min = 0.4              # a number, or a raster file on the DEM grid
    # restitution = 0.0
    # uncertainty = "none"      # or "category" / "sets": each rock draws its parameters from
                                # the category's spread (tumble rockfall soils)

    # [soil]                    # or a soil class map on any grid, resampled to the DEM:
    # map = "soil.tif"          # integer classes; [soil.classes] 1 = "medium", or
                                # 2 = { preset = "medium", drag = 3000.0, drag_height = 1.5 }
    # [forest]                  # stands as an inventory gives them (numbers or rasters):
    # stems_per_ha = "stems.tif"  # 0 or nodata = no forest
    # dbh_cm = 30.0             # mean diameter at breast height; energy_factor = 1.0
    # trees = "trees.gpkg"      # or single trees (points), dbh_field = "dbh"
    # map = "forest.tif"        # or a drag-layer class map (RAMMS-style):
                                # [forest.classes] 1 = { drag = 2000.0, drag_height = 5.0 }

    [release]
    point = [10.0, 0.0]         # or line = [[x1, y1], [x2, y2]], or polygon = [[x, y], ...]
    height = 1.5                # centre of mass above the terrain, m
    speed_downslope = 1.0       # m/s, or velocity = [vx, vy, vz]
    omega = [0.0, 0.0, 0.0]     # rad/s, body frame
    orientation = "random"      # or [w, x, y, z]
    sampling = "random"         # or "stratified": areas, classes and cells in strata of 1/n

    [solver]                    # pgs_tol, pgs_max_iter, newton_tol, newton_max_iter,
                                # rest_speed, rest_time, gravity
    [output]                    # sample_every, trajectories, trajectory_every, ascii, figures
    [run]                       # chunk_size, threads, dask
    [convergence]               # target = 0.1 (relative half-width of the 95 % intervals),
                                # min_probability = 0.01, max_rocks = 20000; rocks = "auto" runs
                                # in rounds until judge = ["reach_line", "zone_boundaries",
                                # "design"] (or "zones", "design_intervals", "cells") settle;
                                # thresholds reach_line_moved, zone_boundary_moved,
                                # zone_changed, design_change, design_interval (README)

    [[barrier]]                 # any number of barrier lines (observation lines) and nets
    name = "fence A"            # required, unique among the barriers
    line = [[40.0, -10.0], [40.0, 10.0]]   # DEM coordinates, >= 2 points; or
    # file = "fences.gpkg"      # a line from a GeoPackage, GeoJSON or Shapefile (CRS checked)
    # layer = "fences"          # the file's layer (default: its first)
    # name_field = "name"       # the line whose attribute name_field equals name; without it
                                # the file must hold exactly one line (or give feature = k,
                                # the k-th line of the file, 1-based)
    height = 4.0                # m; with height and/or capacity the barrier is a net,
    capacity = 1000.0           # kJ; without both an observation line only
    # uphill = "left"           # the side the rocks come from, seen along the line from its
                                # first point to its last; default: the side of the release

    [design]                    # design values of a fence (every key optional)
    standard = "UNI 11211-4"
    # gamma_tr = 1.10           # also gamma_dp, gamma_vol, gamma_gamma, gamma_e: partial
                                # factors (unset: the standard's defaults)
    # f_min_m = 0.5             # minimum free board, m (unset: the standard's)
    # mass_kg = 2000.0          # design block, kg (unset: the largest rock mass of the run)

File names in the file (``dem``, ``rock.file``, soil rasters, ``barrier.file``) are relative to
the file's folder, so ``tumble rockfall run --config site/run.toml`` works from any folder; those
given on the command line are relative to the working directory. Unknown keys are refused with a
message that names them (a misspelt key never silently falls back to a default); every refusal
is a :class:`tumble.errors.ConfigError` (a ``ValueError``) whose ``key`` is the offending key.
Overrides ``section.key=value`` (dotted keys, the value in TOML syntax, or a bare word taken as
a string) are applied on top of the file, e.g. ``release.height=2`` or ``rock.box=[2,1,0.5]``.
Release defaults of a built-in scenario apply only to the fields the configuration leaves unset
(``None`` here); this module knows nothing of the physics, it only checks types and ranges.

Barriers come from ``[[barrier]]`` tables and from barrier files (:func:`load_barriers_file`,
the command line's ``--barriers FILE``, appended after the configuration's own): a TOML file
holding only ``[[barrier]]`` tables (their file names relative to that file's folder), or a vector
file (GeoPackage, GeoJSON, Shapefile; its first layer) whose every line is a barrier line, named
by the feature's ``name`` attribute when the layer has that field (each name on one line) or else
``line_1``, ``line_2``... in the file's order. A barrier read from a file is one line: a
multi-line feature's parts count as separate lines. Geometry (at least two points, no repeated
point, no self-crossing, inside the DEM) and the CRS are checked by the engine
(:mod:`tumble.rockfall.barriers`), which knows the DEM.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)

from tumble.errors import ConfigError
from tumble.io.config_keys import error_key, error_message
from tumble.io.overrides import (
    apply_overrides,
    deep_copy,
    override_keys,
    read_toml,
    set_key,
)
from tumble.io.site_config import SITE_PATH_KEYS, ReleaseAreaKeys, RockClassesKey
from tumble.io.vectors import barrier_entries
from tumble.solver_defaults import DT, SCHEME, T_MAX

#: the largest integer a configuration accepts anywhere (a count, a seed, a cap): 2^63 - 1, what
#: the kernels' int64 holds; the engine sets tighter limits where memory is at stake
MAX_INT = 2**63 - 1

PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegativeFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(ge=1, le=MAX_INT)]
NonNegativeInt = Annotated[int, Field(ge=0, le=MAX_INT)]
#: TOML has arrays, not tuples: a fixed-length array is accepted as a list (``Strict(False)`` on
#: the container only; its numbers stay strict)
Pair = Annotated[tuple[FiniteFloat, FiniteFloat], Strict(False)]
Triple = Annotated[tuple[FiniteFloat, FiniteFloat, FiniteFloat], Strict(False)]
Quadruple = Annotated[tuple[FiniteFloat, FiniteFloat, FiniteFloat, FiniteFloat], Strict(False)]
#: the code of a class map (``[soil.classes]``, ``[forest.classes]``): TOML keys are strings, so
#: the digits of a key are read as the integer code ("1" -> 1; "1.5" or "a" are refused)
ClassCode = Annotated[int, Strict(False), Field(ge=-MAX_INT, le=MAX_INT)]


class _Section(BaseModel):
    """Base of every table of a configuration: unknown keys refused, values frozen, and strict
    types (pydantic's strict mode): a boolean is not a number (``rocks = true`` is refused), a
    string is never converted to a number (``dt = "0.01"`` is refused), a float is not an integer
    (``rocks = 10.0`` is refused); an integer where a float is expected is accepted (``dt = 1``),
    as TOML writes whole numbers without a decimal point. Infinite and NaN values are refused by
    the number types above (TOML's ``inf``, ``nan`` and overflowing literals such as ``1e400``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class RockConfig(_Section, RockClassesKey):
    shape: Literal["eota221", "eota111", "box", "file"] = "eota221"
    mass: PositiveFloat | None = None
    # m^3: the size of the shape at the rock's density (instead of mass or size)
    volume: PositiveFloat | None = None
    size: PositiveFloat | None = None
    density: PositiveFloat | None = None
    box: Annotated[tuple[PositiveFloat, PositiveFloat, PositiveFloat], Strict(False)] | None = None
    file: str | None = None


#: a soil field: a number or the path of a raster on the DEM grid
SoilValue = NonNegativeFloat | str
#: the modes of ``soil.uncertainty`` (tumble.rockfall.site.soil_uncertainty.UNCERTAINTY_MODES)
SoilUncertainty = Literal["none", "category", "sets"]


class SoilClassConfig(_Section):
    """One class of a soil map given as a table: a preset (default ``medium``) with fields
    overridden by numbers."""

    preset: str = "medium"
    #: this class's parameter uncertainty (default: that of ``[soil] uncertainty``)
    uncertainty: SoilUncertainty | None = None
    mu_min: NonNegativeFloat | None = None
    mu_max: NonNegativeFloat | None = None
    kappa: NonNegativeFloat | None = None
    beta: NonNegativeFloat | None = None
    restitution: NonNegativeFloat | None = None
    drag: NonNegativeFloat | None = None
    drag_torque: NonNegativeFloat | None = None
    drag_height: NonNegativeFloat | None = None
    rolling_resistance: NonNegativeFloat | None = None
    scar_strength: NonNegativeFloat | None = None
    scar_cs: NonNegativeFloat | None = None
    collision_froude: NonNegativeFloat | None = None


class SoilConfig(_Section):
    preset: str | None = "medium"
    #: draw each rock's parameters from the category's spread or its equivalent sets
    #: (tumble.rockfall.site.soil_uncertainty); per class of a soil map too
    uncertainty: SoilUncertainty = "none"
    mu_min: SoilValue | None = None
    mu_max: SoilValue | None = None
    kappa: SoilValue | None = None
    beta: SoilValue | None = None
    restitution: SoilValue | None = None
    drag: SoilValue | None = None
    drag_torque: SoilValue | None = None
    drag_height: SoilValue | None = None
    rolling_resistance: SoilValue | None = None
    scar_strength: SoilValue | None = None
    scar_cs: SoilValue | None = None
    collision_froude: SoilValue | None = None
    #: a calibration file (tumble rockfall calibrate): its best set replaces the preset
    calibration: str | None = None
    # a class map (integer raster on any grid) and the soil of each class code
    map: str | None = None
    classes: dict[ClassCode, str | SoilClassConfig] | None = None


class ForestClassConfig(_Section):
    """One forest class: its drag layer (kg/s, m, kg m^2/s)."""

    drag: NonNegativeFloat
    drag_height: PositiveFloat
    drag_torque: NonNegativeFloat = 0.0


class ForestConfig(_Section):
    """``[forest]``: a class map (0 = no forest) and the drag layer of each class, a preset name
    or a table of parameters."""

    map: str | None = None
    classes: dict[ClassCode, str | ForestClassConfig] = {}
    # rock-tree impacts (tumble.rockfall.forest): stands (numbers or rasters on any grid) ...
    stems_per_ha: NonNegativeFloat | str | None = None
    dbh_cm: PositiveFloat | str | None = None
    energy_factor: PositiveFloat | str = 1.0
    # ... or single trees: points of any vector format, DBH (cm) and energy factor fields
    trees: str | None = None
    dbh_field: str = "dbh"
    factor_field: str | None = None
    # stems reach this high above the terrain (m); none: no limit
    stem_height: PositiveFloat | None = None


class ReleaseConfig(_Section, ReleaseAreaKeys):
    point: Pair | None = None
    line: Annotated[tuple[Pair, Pair], Strict(False)] | None = None
    polygon: list[Pair] | None = None
    height: PositiveFloat | None = None
    velocity: Triple | None = None
    speed_downslope: NonNegativeFloat | None = None
    omega: Triple | None = None
    orientation: Literal["random"] | Quadruple = "random"


class SolverConfig(_Section):
    """``[solver]``: a key left out (None) takes the ensembles' default
    (:data:`tumble.rockfall.ensemble.ENSEMBLE_OPTIONS`, from :mod:`tumble.solver_defaults`)."""

    pgs_tol: PositiveFloat | None = None
    pgs_max_iter: PositiveInt | None = None
    newton_tol: PositiveFloat | None = None
    newton_max_iter: PositiveInt | None = None
    rest_speed: NonNegativeFloat | None = None
    rest_time: PositiveFloat | None = None
    gravity: PositiveFloat | None = None


class OutputConfig(_Section):
    sample_every: PositiveInt | None = None
    trajectories: NonNegativeInt = 10
    trajectory_every: PositiveInt = 25
    ascii: bool = False
    figures: bool = True
    #: write ``visits.parquet``: one row per rock and DEM cell its centre passed
    visits: bool = False


Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class ConvergenceConfig(_Section):
    """``[convergence]``: when a run's maps have settled
    (:mod:`tumble.rockfall.hazard.convergence`): the relative half-width ``target`` of the 95 %
    intervals, in the cells of reach probability >= ``min_probability``. With ``rocks = "auto"``
    the run grows in rounds until the products of ``judge`` have settled between rounds
    (:mod:`tumble.rockfall.hazard.settling`: the reach line at ``reach_line_probability`` within
    one cell but for a share ``reach_line_moved`` of it, the zones' boundaries within one cell
    but for a share ``zone_boundary_moved``, the share ``zone_changed`` of zoned cells changing
    zone, the relative change ``design_change`` of the barrier values; ``cells`` the per-cell
    intervals) or it reaches ``max_rocks``."""

    target: Annotated[float, Field(gt=0, lt=1, allow_inf_nan=False)] = 0.1
    min_probability: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = 0.01
    max_rocks: PositiveInt = 20_000
    reach_line_probability: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = 0.01
    reach_line_moved: Share = 0.1
    zone_changed: Share = 0.15
    zone_boundary_moved: Share = 0.1
    design_change: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 0.1
    design_interval: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 0.1
    judge: list[
        Literal["reach_line", "zone_boundaries", "zones", "design", "design_intervals", "cells"]
    ] = [
        "reach_line",
        "zone_boundaries",
        "design",
    ]


class RunConfig(_Section):
    chunk_size: PositiveInt | None = None
    threads: PositiveInt | None = None
    dask: str | None = None


class BarrierConfig(_Section):
    """One ``[[barrier]]`` table: a line given inline (``line``, DEM coordinates) or read from a
    vector file (``file``, with optional ``layer`` and either ``name_field``, the attribute whose
    value is ``name``, or ``feature``, the 1-based index of the line among the file's lines;
    with neither the file must hold exactly one line). ``height`` (m) and ``capacity`` (kJ) make
    the barrier a net; without both it is an observation line. ``uphill`` (``"left"`` or
    ``"right"``, seen along the line from its first point to its last) is the side the rocks
    come from; without it the side of the run's release
    (:mod:`tumble.rockfall.site.barrier_files`)."""

    name: str
    line: list[Pair] | None = None
    file: str | None = None
    layer: str | None = None
    name_field: str | None = None
    feature: PositiveInt | None = None
    height: PositiveFloat | None = None
    capacity: PositiveFloat | None = None
    uphill: Literal["left", "right"] | None = None

    @field_validator("name")
    @classmethod
    def _name_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a barrier needs a non-empty name")
        return value

    @field_validator("file")
    @classmethod
    def _file_text(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("file must be a file path")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> BarrierConfig:
        where = f"barrier {self.name!r}"
        if (self.line is None) == (self.file is None):
            raise ValueError(
                f"{where}: give exactly one of line (inline coordinates) or file (a vector file)"
                + ("; both were given" if self.line is not None else "; neither was given")
            )
        if self.file is None:
            given = [k for k in ("layer", "name_field", "feature") if getattr(self, k) is not None]
            if given:
                raise ValueError(f"{where}: {', '.join(given)} apply to a barrier read from a file")
        elif self.name_field is not None and self.feature is not None:
            raise ValueError(f"{where}: give name_field or feature to choose the line, not both")
        return self


class DesignConfig(_Section):
    """The ``[design]`` table: the standard of the design values and its inputs; None is the
    standard's default (``f_min_m``: minimum free board, m; ``mass_kg``: the design block, None
    for the largest rock mass of the run)."""

    standard: Literal["UNI 11211-4"] = "UNI 11211-4"
    gamma_tr: PositiveFloat | None = None
    gamma_dp: PositiveFloat | None = None
    gamma_vol: PositiveFloat | None = None
    gamma_gamma: PositiveFloat | None = None
    gamma_e: PositiveFloat | None = None
    f_min_m: PositiveFloat | None = None
    mass_kg: PositiveFloat | None = None


class RockfallConfig(_Section):
    """The whole run (module docstring)."""

    scenario: str | None = None
    dem: str | None = None
    # a fill value of the DEM file to take as nodata (a -9999 the file does not tag)
    dem_nodata: FiniteFloat | None = None
    # the CRS the DEM's coordinates are in, replacing a missing or wrong label
    dem_crs: str | None = None
    reproject: str | None = None
    rocks: PositiveInt | Literal["auto"] = 100
    scheme: Literal["explicit", "implicit"] = SCHEME
    seed: NonNegativeInt = 0
    dt: PositiveFloat = DT
    t_max: PositiveFloat = T_MAX
    rock: RockConfig = RockConfig()
    soil: SoilConfig = SoilConfig()
    forest: ForestConfig = ForestConfig()
    release: ReleaseConfig = ReleaseConfig()
    solver: SolverConfig = SolverConfig()
    output: OutputConfig = OutputConfig()
    run: RunConfig = RunConfig()
    barrier: list[BarrierConfig] = []
    design: DesignConfig = DesignConfig()
    convergence: ConvergenceConfig = ConvergenceConfig()

    @field_validator("dem")
    @classmethod
    def _dem_text(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("dem must be a file path")
        return value

    @field_validator("barrier")
    @classmethod
    def _unique_barriers(cls, value: list[BarrierConfig]) -> list[BarrierConfig]:
        names = [b.name for b in value]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(
                "barrier names must be unique; "
                + ", ".join(f"{n!r} is given {names.count(n)} times" for n in repeated)
            )
        return value

    def physics(self) -> dict:
        """The part that decides the numbers (everything except ``output`` and ``run``)."""
        return self.model_dump(exclude={"output", "run", "convergence"})


def validate(data: dict) -> RockfallConfig:
    """A :class:`RockfallConfig` from a plain dict; :class:`~tumble.errors.ConfigError` naming
    every bad key (its ``key``: the first of them, :func:`tumble.io.config_keys.config_key`)."""
    try:
        return RockfallConfig.model_validate(data)
    except ValidationError as err:
        key = error_key(err.errors()[0], RockfallConfig) if err.errors() else None
        raise ConfigError(error_message(err, RockfallConfig), key or None) from None


#: keys whose string values are file names: resolved against the folder of the TOML file that
#: gives them (a soil field given as a string is the file name of a raster); ``"*"`` stands for
#: every element of a list of tables (``[[barrier]]``)
PATH_KEYS = (
    ("dem",),
    ("rock", "file"),
    *(
        ("soil", name)
        for name in SoilConfig.model_fields
        if name not in ("preset", "classes", "uncertainty")
    ),
    ("barrier", "*", "file"),
    ("forest", "map"),
    ("forest", "stems_per_ha"),
    ("forest", "dbh_cm"),
    ("forest", "energy_factor"),
    ("forest", "trees"),
    *SITE_PATH_KEYS,
)


def _resolve_key(node: Any, key: tuple[str, ...], base: Path) -> None:
    """Make the file name at ``key`` below ``node`` absolute against ``base``, in place."""
    if not key:
        return
    part, rest = key[0], key[1:]
    if part == "*":
        if isinstance(node, list):
            for item in node:
                _resolve_key(item, rest, base)
        return
    if not isinstance(node, dict):
        return
    if rest:
        _resolve_key(node.get(part), rest, base)
        return
    value = node.get(part)
    if isinstance(value, str) and value.strip() and not Path(value).is_absolute():
        node[part] = str(base / value)


def resolve_paths(data: dict, base: str | os.PathLike) -> dict:
    """A copy of ``data`` with every relative file name of :data:`PATH_KEYS` made absolute
    against ``base`` (the folder of the configuration file)."""
    out = deep_copy(data)
    for key in PATH_KEYS:
        _resolve_key(out, key, Path(base).resolve())
    return out


#: suffix of a barriers file read as TOML; any other is read as a vector file
BARRIER_TOML_SUFFIX = ".toml"


def load_barriers_file(path: str | os.PathLike) -> list[dict]:
    """The ``[[barrier]]`` entries (plain dicts, not yet validated) of a barriers file, as the
    command line's ``--barriers FILE`` appends them to a run's configuration.

    * A ``.toml`` file holds ``[[barrier]]`` tables and nothing else; their ``file`` names are
      made absolute against the TOML file's folder.
    * Any other file is a vector file (GeoPackage, GeoJSON, Shapefile) and every line of its
      first layer is a barrier line (no height or capacity: an observation line): when the
      layer has a ``name`` field, entry ``{"name": <its value>, "file": <absolute path>,
      "name_field": "name"}`` per line (each name must be on one line only); without one,
      ``{"name": "line_<k>", "file": <absolute path>, "feature": k}`` for ``k = 1, 2, ...`` in
      the file's order (a multi-line feature's parts count one by one).

    :class:`~tumble.errors.ConfigError` for a missing or malformed TOML file or keys other than
    ``barrier``; :class:`~tumble.errors.DataError` for a vector file that cannot be read, holds
    no lines, or gives a name to several lines.
    """
    path = Path(path)
    if path.suffix.lower() == BARRIER_TOML_SUFFIX:
        data = read_toml(path)
        other = sorted(set(data) - {"barrier"})
        if other:
            raise ConfigError(
                f"barriers file {path} holds {', '.join(map(repr, other))}; "
                "it may hold [[barrier]] tables only"
            )
        entries = data.get("barrier", [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ConfigError(f"barriers file {path}: barrier must be [[barrier]] tables")
        if not entries:
            raise ConfigError(f"barriers file {path} holds no [[barrier]] table")
        resolved: list[dict] = resolve_paths({"barrier": entries}, path.parent)["barrier"]
        return resolved
    return barrier_entries(path)


#: keys that say the same thing in other terms: one given by a later layer of a configuration
#: (the options over the file, the overrides over both) replaces the others given before
ALTERNATIVE_KEYS = (("rock.mass", "rock.size", "rock.volume"),)


def _without_alternatives(data: dict, given: Sequence[str]) -> dict:
    """``data`` without the keys of :data:`ALTERNATIVE_KEYS` that a key of ``given`` replaces."""
    out = deep_copy(data)
    for group in ALTERNATIVE_KEYS:
        if not set(group) & set(given):
            continue
        for key in set(group) - set(given):
            *sections, last = key.split(".")
            node: Any = out
            for part in sections:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict):
                node.pop(last, None)
    return out


def load_config(
    path: str | os.PathLike | None = None,
    settings: dict[str, Any] | None = None,
    overrides: list[str] | None = None,
    barrier_files: Sequence[str | os.PathLike] = (),
) -> RockfallConfig:
    """The configuration of a run: the file at ``path`` (optional), then ``settings`` (dotted
    keys to values, e.g. from command-line options; None values are skipped), then the barriers
    of ``barrier_files`` (:func:`load_barriers_file`, appended to the file's ``[[barrier]]``
    tables), then the ``key=value`` ``overrides``; validated once at the end.

    Of the keys of :data:`ALTERNATIVE_KEYS` (``rock.mass``, ``rock.size``, ``rock.volume``), one
    given by a later layer replaces the others given before (``--volume`` beside a file's
    ``mass``); two in the same layer are refused where they are used.

    File names written in the TOML file are relative to the file's folder; those given in
    ``settings`` or ``overrides`` (the command line) stay as they are, relative to the working
    directory. :class:`~tumble.errors.ConfigError` naming the offending key, DataError for a
    barriers file that cannot be read."""
    data = resolve_paths(read_toml(path), Path(path).parent) if path is not None else {}
    settings = settings or {}
    # a terrain given on the command line replaces the file's terrain of the other kind
    if settings.get("dem") is not None:
        data.pop("scenario", None)
    if settings.get("scenario") is not None:
        data.pop("dem", None)
    given = [key for key, value in settings.items() if value is not None]
    data = _without_alternatives(data, given)
    for key in given:
        data = set_key(data, key, settings[key])
    if barrier_files:
        given = data.get("barrier", [])
        if not isinstance(given, list):
            raise ConfigError(
                "invalid configuration: barrier must be [[barrier]] tables", "barrier"
            )
        data["barrier"] = given + [e for f in barrier_files for e in load_barriers_file(f)]
    overrides = overrides or []
    data = apply_overrides(_without_alternatives(data, override_keys(overrides)), overrides)
    config = validate(data)
    if config.scenario is not None and config.dem is not None:
        raise ConfigError("invalid configuration: give scenario or dem, not both", "scenario")
    return config
