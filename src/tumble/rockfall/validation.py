"""Simulations against the Authume field tests: per-zone soils, profile runs, metrics, calibration.

The Authume quarry tests (:mod:`tumble.rockfall.authume`, Garcia et al. 2022, Bourrier et al.
2021) released 41 blocks on profile P1 and 48 on P2 and surveyed where they stopped. This module
simulates the same releases and compares the stop points.

Soil. Each zone of the DEM (Blue vegetated slope, Gray hard surface, Red rocky slope) gets one row
of a parameter table (:meth:`SoilParameters.table`); :func:`zone_soil` turns the table and the
zone raster into a :class:`~tumble.rockfall.soil.Soil` whose fields are rasters on the DEM grid
(constant where all zones agree). Nodes outside the survey (zone 0, filled from the nearest
surveyed node, mostly the continuation of the quarry's platforms) take the **Gray** row; rocks
that reach them keep rolling, and rocks that reach the DEM's border end as ``left_domain``. All
zones start from the slippage-dependent friction of the one published field-calibrated set (Lu
et al. 2019 after Bartelt 2016: ``mu_min = 0.55``, ``mu_max = 2``, ``kappa = 3 /m``, ``beta =
185 /s``) with no restitution, as in RAMMS (Leine et al. 2014). Two numbers are calibrated:

* ``vegetation_drag`` ``c`` (kg/s): the linear drag layer of Leine et al. 2014 (eq. 10-11) on
  the Blue zone, the crude model of forest and bush, active while the centre of mass is less than
  :data:`VEGETATION_HEIGHT` above the terrain, with the rotational drag ``c (0.5 m)^2`` (the
  drag force acting at a lever arm of 0.5 m, about the blocks' half size);
* ``hard_friction``: a factor on ``mu_min`` and ``mu_max`` of the Gray and Red zones.

Runs. :func:`run_profile` simulates ``n`` releases of :func:`~tumble.rockfall.authume.
authume_releases` (256 = each of the four drop points with each of the 64 given orientations,
masses and shapes drawn from the profile's measured blocks) with :func:`~tumble.rockfall.
simulate`, one rock after the other or on ``workers`` threads (the kernels release the GIL);
the results are in rock order and do not depend on ``workers``. The stop point of a rock is its
final centre of mass, for every regular end (``stopped``; ``left_domain`` and ``timed_out`` give
a lower bound of the run-out and are counted); rocks that end in a numerical failure are left out
of the metrics and counted.

Metrics (:func:`profile_metrics`), in the horizontal plane only (the measured stop heights lie
2.5-2.9 m above the terrain mesh, see :mod:`tumble.rockfall.authume`):

* run-out: distance along the profile from the drop line (:func:`~tumble.rockfall.authume.
  profile_coordinates`), lateral: the offset across it; medians, quantiles and the 1-Wasserstein
  distances between the measured and simulated samples (:func:`wasserstein`, the area between the
  two empirical CDFs, in metres);
* ``fraction_measured_inside_envelope``: the fraction of measured stop points inside the
  simulated 95 % stop envelope :func:`stop_envelope`, the highest-density region of a Gaussian
  kernel density estimate of the simulated stop points (isotropic, standard deviation
  ``bandwidth``, default :data:`ENVELOPE_BANDWIDTH`) whose density threshold is the 5 % quantile
  of the estimate at the simulated stop points themselves, so that the region holds 95 % of them
  (Hyndman 1996). Unlike a convex hull it follows several clusters (the quarry's benches) and
  excludes the empty ground between them.

Calibration (:func:`calibrate`): a grid over ``vegetation_drag`` and ``hard_friction``
(:data:`CALIBRATION_GRID`), each point one run of P1 with fixed seeds, objective the sum of the
run-out and lateral Wasserstein distances on P1; the best point is kept. The function takes no
profile argument and reads only P1's data: P2 is the held-out check. :data:`CALIBRATED` holds the
result of :data:`CALIBRATION_COMMAND`.

References: B. Garcia, P. Villard, V. Richefeu, D. Daudon, Eng. Geol. 310 (2022) 106855.
F. Bourrier, D. Toe, B. Garcia, J. Baroth, S. Lambert, Landslides 18 (2021) 639-654.
R. I. Leine et al., Multibody Syst. Dyn. 32 (2014) 241-271. G. Lu et al., Landslides 16 (2019)
2353-2367. R. J. Hyndman, Computing and graphing highest density regions, Am. Stat. 50 (1996)
120-126.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields
from itertools import product

import numpy as np
from scipy.stats import wasserstein_distance

from tumble.rockfall import authume
from tumble.rockfall.simulate import simulate
from tumble.rockfall.soil import FIELDS, PRESETS, Soil
from tumble.rockfall.status import REGULAR, status_name

#: Zone id -> row of the soil table; zone 0 (outside the survey) takes the Gray row.
ZONE_ROWS = {authume.ZONE_OUTSIDE: "gray", 1: "blue", 2: "gray", 3: "red"}
#: Rows of the soil table.
ZONES = ("blue", "gray", "red")
#: Height of the vegetation drag layer on the Blue zone, m.
VEGETATION_HEIGHT = 2.0
#: Lever arm of the rotational vegetation drag: ``drag_torque = drag * LEVER**2``, m.
VEGETATION_LEVER = 0.5
#: The friction law every zone starts from (Lu et al. 2019 after Bartelt 2016).
BASE_FRICTION = {k: float(v) for k, v in PRESETS["medium"].items()}
#: Rocks per profile: every drop point with every given orientation.
ROCKS_PER_PROFILE = authume.N_CYCLE
#: Stop envelope: content and kernel standard deviation (m).
ENVELOPE_CONTENT = 0.95
ENVELOPE_BANDWIDTH = 3.0
#: Simulated time per rock, s (the rocks of the calibrated runs stop within 50 s).
T_MAX = 60.0
#: Saved samples per rock: every SAVE_EVERY-th step (only the final state is used here).
SAVE_EVERY = 500


@dataclass(frozen=True)
class SoilParameters:
    """The calibrated numbers of the per-zone soil table (module docstring).

    ``vegetation_drag``: drag coefficient of the Blue zone's vegetation layer, kg/s;
    ``hard_friction``: factor on ``mu_min`` and ``mu_max`` of the Gray and Red zones.
    """

    vegetation_drag: float = 0.0
    hard_friction: float = 1.0

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{f.name} must be a number, got {value!r}") from None
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{f.name} must be finite and not negative, got {value!r}")
            object.__setattr__(self, f.name, value)
        if self.hard_friction == 0.0:
            raise ValueError("hard_friction must be positive, got 0")

    def table(self) -> dict[str, dict[str, float]]:
        """The soil table: zone row (:data:`ZONES`) -> every field of :class:`Soil`."""
        base = dict.fromkeys(FIELDS, 0.0) | BASE_FRICTION
        hard = base | {
            "mu_min": base["mu_min"] * self.hard_friction,
            "mu_max": base["mu_max"] * self.hard_friction,
        }
        blue = base | {
            "drag": self.vegetation_drag,
            "drag_torque": self.vegetation_drag * VEGETATION_LEVER**2,
            "drag_height": VEGETATION_HEIGHT if self.vegetation_drag > 0.0 else 0.0,
        }
        return {"blue": blue, "gray": dict(hard), "red": dict(hard)}

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


#: The calibration grid: every combination is one run of P1.
CALIBRATION_GRID = {
    "vegetation_drag": (0.0, 100.0, 150.0, 200.0, 250.0, 300.0),
    "hard_friction": (0.25, 0.5, 1.0, 2.0),
}
#: The command whose calibration gave :data:`CALIBRATED` (P1, implicit scheme, 256 rocks,
#: seed 0, the grid above).
CALIBRATION_COMMAND = "tumble validate authume --out out/authume --calibrate"
#: The parameters chosen by :data:`CALIBRATION_COMMAND`: objective 9.41 m on P1 (run-out
#: Wasserstein 6.92 m + lateral 2.49 m), next best 10.45 m (250 kg/s, 0.25).
CALIBRATED = SoilParameters(vegetation_drag=250.0, hard_friction=0.5)


def zone_soil(zone, table: Mapping[str, Mapping[str, float]]) -> Soil:
    """A :class:`Soil` on the DEM grid from the zone raster and a soil table (zone row -> fields).

    Each field is a raster taking the value of its node's zone row (:data:`ZONE_ROWS`; zone 0
    takes the Gray row), or one number where all rows agree. The engine interpolates the rasters
    bilinearly, so parameters blend over one cell at zone borders.
    """
    zone = np.asarray(zone)
    if zone.ndim != 2:
        raise ValueError(f"the zone raster must be 2-D, got shape {zone.shape}")
    ids = np.rint(zone).astype(np.int64)
    unknown = sorted(set(np.unique(ids).tolist()) - set(ZONE_ROWS))
    if unknown:
        raise ValueError(f"zone ids {unknown} have no soil; known ids: {sorted(ZONE_ROWS)}")
    present = sorted({ZONE_ROWS[i] for i in np.unique(ids).tolist()})
    missing = [row for row in present if row not in table]
    if missing:
        raise ValueError(f"the soil table has no row for zone(s) {missing}")
    values = {}
    for name in FIELDS:
        per_row = {}
        for row in present:
            if name not in table[row]:
                raise ValueError(f"the soil table row {row!r} has no field {name!r}")
            per_row[row] = float(table[row][name])
        if len(set(per_row.values())) == 1:
            values[name] = per_row[present[0]]
            continue
        lookup = np.zeros(max(ZONE_ROWS) + 1)
        for i, row in ZONE_ROWS.items():
            lookup[i] = per_row.get(row, 0.0)
        values[name] = lookup[ids]
    return Soil(**values)


# ---------------------------------------------------------------------------------------------
# runs


@dataclass(frozen=True, eq=False)
class ProfileRun:
    """Stop points of ``n`` simulated releases on a profile (tumble's frame, batch first).

    ``stop`` (n, 3): final centre of mass (m); ``coordinates`` (n, 2): its distance along the
    profile from the drop line and lateral offset (m); ``status`` (n,): how each rock ended;
    ``t_end`` (n,): simulated time (s); ``steps`` (n,); ``seconds``: wall-clock time of the run;
    ``spacing``: of the DEM (m).
    """

    profile: str
    scheme: str
    parameters: SoilParameters
    releases: authume.AuthumeReleases
    stop: np.ndarray
    coordinates: np.ndarray
    status: tuple[str, ...]
    t_end: np.ndarray
    steps: np.ndarray
    seconds: float
    t_max: float
    spacing: float

    def __len__(self) -> int:
        return len(self.status)

    @property
    def regular(self) -> np.ndarray:
        """Rocks whose run ended regularly (not in a numerical failure)."""
        names = {status_name(code) for code in REGULAR}
        return np.array([s in names for s in self.status], dtype=bool)

    def status_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(self.status).items()))


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def run_profile(
    profile,
    parameters: SoilParameters = CALIBRATED,
    scheme: str = "implicit",
    n: int = ROCKS_PER_PROFILE,
    seed: int = 0,
    t_max: float = T_MAX,
    workers: int = 1,
    spacing: float = 0.5,
    data_dir=None,
    progress: Callable[[int], None] | None = None,
) -> ProfileRun:
    """Simulate ``n`` releases on a profile with the per-zone soil of ``parameters``.

    Rock ``k`` is :meth:`~tumble.rockfall.authume.AuthumeReleases.rock` ``(k)`` released at rest
    from its drop point and orientation; ``scheme`` is the rotation scheme of the engine
    (``"implicit"`` or ``"explicit"``). ``workers`` threads share the rocks; the result is the
    same for any number. ``progress(k)`` is called once per finished rock, in rock order.
    """
    if not isinstance(parameters, SoilParameters):
        raise ValueError(f"parameters must be SoilParameters, got {type(parameters).__name__}")
    if scheme not in ("implicit", "explicit"):
        raise ValueError(f"scheme must be 'implicit' or 'explicit', got {scheme!r}")
    n = _positive_int(n, "n")
    workers = _positive_int(workers, "workers")
    t_max = float(t_max)
    if not (math.isfinite(t_max) and t_max > 0.0):
        raise ValueError(f"t_max must be positive, got {t_max!r}")
    start = time.perf_counter()
    terrain = authume.authume_terrain(data_dir, spacing)
    soil = zone_soil(terrain.soil["zone"], parameters.table())
    releases = authume.authume_releases(profile, n, seed, data_dir)

    def one(k: int):
        trajectory = simulate(
            terrain,
            releases.rock(k),
            soil,
            releases.position[k],
            releases.quaternion[k],
            scheme=scheme,
            t_max=t_max,
            save_every=SAVE_EVERY,
        )
        return trajectory.position[-1], trajectory.status, trajectory.t[-1], trajectory.steps

    results = []
    if workers == 1:
        for k in range(n):
            results.append(one(k))
            if progress is not None:
                progress(k)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for k, result in enumerate(pool.map(one, range(n))):
                results.append(result)
                if progress is not None:
                    progress(k)
    stop = np.array([r[0] for r in results])
    return ProfileRun(
        profile=releases.profile,
        scheme=scheme,
        parameters=parameters,
        releases=releases,
        stop=stop,
        coordinates=authume.profile_coordinates(releases.profile, stop, data_dir),
        status=tuple(r[1] for r in results),
        t_end=np.array([r[2] for r in results]),
        steps=np.array([r[3] for r in results], dtype=np.int64),
        seconds=time.perf_counter() - start,
        t_max=t_max,
        spacing=float(spacing),
    )


# ---------------------------------------------------------------------------------------------
# metrics


def _sample(values, name: str, ndim: int = 1) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != ndim or arr.shape[0] == 0 or (ndim == 2 and arr.shape[1] != 2):
        shape = "(n,)" if ndim == 1 else "(n, 2)"
        raise ValueError(f"{name} must be a non-empty array of shape {shape}, got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def wasserstein(measured, simulated) -> float:
    """1-Wasserstein distance between two samples of a distance (m): the area between their
    empirical CDFs (``scipy.stats.wasserstein_distance``)."""
    return float(
        wasserstein_distance(_sample(measured, "measured"), _sample(simulated, "simulated"))
    )


@dataclass(frozen=True, eq=False)
class StopEnvelope:
    """The highest-density region of a kernel density estimate of stop points (module docstring).

    ``points`` (n, 2): the simulated stop points; ``bandwidth``: standard deviation of the
    isotropic Gaussian kernel (m); ``level``: the density threshold (1/m^2); ``content``: the
    fraction of ``points`` the region was built to hold.
    """

    points: np.ndarray
    bandwidth: float
    level: float
    content: float

    def density(self, xy) -> np.ndarray:
        """Kernel density estimate at points (..., 2), 1/m^2 (integrates to 1 over the plane)."""
        xy = np.asarray(xy, dtype=np.float64)
        if xy.shape[-1:] != (2,):
            raise ValueError(f"points must have shape (..., 2), got {xy.shape}")
        flat = xy.reshape(-1, 2)
        out = np.empty(flat.shape[0])
        h2 = self.bandwidth**2
        norm = 1.0 / (2.0 * math.pi * h2 * self.points.shape[0])
        for lo in range(0, flat.shape[0], 2048):
            chunk = flat[lo : lo + 2048]
            d2 = ((chunk[:, None, :] - self.points[None, :, :]) ** 2).sum(axis=-1)
            out[lo : lo + 2048] = norm * np.exp(-0.5 * d2 / h2).sum(axis=1)
        return out.reshape(xy.shape[:-1])

    def contains(self, xy) -> np.ndarray:
        """Whether points (..., 2) lie in the envelope (density at least :attr:`level`)."""
        return self.density(xy) >= self.level

    def area(self, cell: float = 0.25) -> float:
        """Area of the envelope (m^2), counted on a square grid of spacing ``cell`` (m) that
        covers the points and four bandwidths around them."""
        cell = float(cell)
        if not (math.isfinite(cell) and cell > 0.0):
            raise ValueError(f"cell must be positive, got {cell!r}")
        lo = self.points.min(axis=0) - 4.0 * self.bandwidth
        hi = self.points.max(axis=0) + 4.0 * self.bandwidth
        gx = np.arange(lo[0] + 0.5 * cell, hi[0], cell)
        gy = np.arange(lo[1] + 0.5 * cell, hi[1], cell)
        inside = self.contains(np.stack(np.meshgrid(gx, gy), axis=-1))
        return float(inside.sum()) * cell * cell


def stop_envelope(
    points, content: float = ENVELOPE_CONTENT, bandwidth: float = ENVELOPE_BANDWIDTH
) -> StopEnvelope:
    """The region of highest simulated stop density holding the fraction ``content`` of the
    stop points ``points`` (n, 2): its threshold is the density at the ``floor((1 - content)
    n)``-th lowest of the points, so that at least ``content n`` of them lie inside."""
    points = np.ascontiguousarray(_sample(points, "simulated stop points", ndim=2))
    content, bandwidth = float(content), float(bandwidth)
    if not (0.0 < content <= 1.0):
        raise ValueError(f"content must lie in (0, 1], got {content!r}")
    if not (math.isfinite(bandwidth) and bandwidth > 0.0):
        raise ValueError(f"bandwidth must be positive, got {bandwidth!r}")
    envelope = StopEnvelope(points, bandwidth, 0.0, content)
    at_points = np.sort(envelope.density(points))
    level = float(at_points[math.floor((1.0 - content) * points.shape[0] + 1e-9)])
    return StopEnvelope(points, bandwidth, level, content)


def fraction_inside(envelope: StopEnvelope, points) -> float:
    """Fraction of ``points`` (n, 2) inside the envelope."""
    points = _sample(points, "measured stop points", ndim=2)
    return float(envelope.contains(points).mean())


def _quantiles(values: np.ndarray) -> dict[str, float]:
    levels = (0.05, 0.25, 0.5, 0.75, 0.95)
    values = np.quantile(values, levels)
    return {f"p{round(p * 100):02d}": float(v) for p, v in zip(levels, values, strict=True)}


def profile_metrics(
    run: ProfileRun,
    measured: authume.MeasuredEndpoints,
    data_dir=None,
    content: float = ENVELOPE_CONTENT,
    bandwidth: float = ENVELOPE_BANDWIDTH,
) -> dict:
    """Measured against simulated stop points of one profile and scheme (module docstring)."""
    ok = run.regular
    if not ok.any():
        raise ValueError(f"no rock of {run.profile} ({run.scheme}) ended regularly")
    simulated = run.coordinates[ok]
    observed = authume.profile_coordinates(run.profile, measured.position, data_dir)
    envelope = stop_envelope(run.stop[ok, :2], content, bandwidth)
    statuses = run.status_counts()
    return {
        "median_runout_measured_m": float(np.median(observed[:, 0])),
        "median_runout_simulated_m": float(np.median(simulated[:, 0])),
        "runout_wasserstein_m": wasserstein(observed[:, 0], simulated[:, 0]),
        "lateral_wasserstein_m": wasserstein(observed[:, 1], simulated[:, 1]),
        "fraction_measured_inside_envelope": fraction_inside(envelope, measured.position[:, :2]),
        "soil_parameters": run.parameters.as_dict(),
        "soil": run.parameters.table(),
        "runout_measured_quantiles_m": _quantiles(observed[:, 0]),
        "runout_simulated_quantiles_m": _quantiles(simulated[:, 0]),
        "median_lateral_measured_m": float(np.median(observed[:, 1])),
        "median_lateral_simulated_m": float(np.median(simulated[:, 1])),
        "lateral_spread_measured_m": float(np.std(observed[:, 1])),
        "lateral_spread_simulated_m": float(np.std(simulated[:, 1])),
        "envelope": {
            "content": content,
            "bandwidth_m": bandwidth,
            "level_per_m2": envelope.level,
            "area_m2": envelope.area(),
        },
        "n_measured": int(observed.shape[0]),
        "n_simulated": len(run),
        "n_used": int(ok.sum()),
        "status": statuses,
        "fraction_stopped_outside_survey": _outside_fraction(run, ok, data_dir),
        "seconds": run.seconds,
    }


def _outside_fraction(run: ProfileRun, ok: np.ndarray, data_dir=None) -> float:
    terrain = authume.authume_terrain(data_dir, run.spacing)
    xy = run.stop[ok, :2]
    inside = terrain.contains(xy[:, 0], xy[:, 1])
    zone = np.full(xy.shape[0], authume.ZONE_OUTSIDE, dtype=np.float64)
    if inside.any():
        zone[inside] = terrain.sample("zone", xy[inside, 0], xy[inside, 1])
    return float(np.mean(zone == authume.ZONE_OUTSIDE))


# ---------------------------------------------------------------------------------------------
# calibration


@dataclass(frozen=True, eq=False)
class Calibration:
    """Result of :func:`calibrate`: one row per grid point (parameters, metrics on P1, objective)
    in grid order, and the best parameters (smallest objective; the first on ties)."""

    rows: list[dict]
    best: SoilParameters
    scheme: str
    n: int
    seed: int
    seconds: float


def calibration_points(grid: Mapping[str, Iterable[float]]) -> list[SoilParameters]:
    """Every combination of a grid (parameter name -> values), the last name varying fastest."""
    names = [f.name for f in fields(SoilParameters)]
    unknown = sorted(set(grid) - set(names))
    if unknown:
        raise ValueError(f"unknown calibration parameter(s) {unknown}; known: {names}")
    axes = {name: tuple(float(v) for v in values) for name, values in grid.items()}
    empty = [name for name, values in axes.items() if not values]
    if empty:
        raise ValueError(f"calibration grid axis {empty[0]!r} has no values")
    return [
        SoilParameters(**dict(zip(axes, combo, strict=True))) for combo in product(*axes.values())
    ]


def calibrate(
    grid: Mapping[str, Iterable[float]] = CALIBRATION_GRID,
    scheme: str = "implicit",
    n: int = ROCKS_PER_PROFILE,
    seed: int = 0,
    t_max: float = T_MAX,
    workers: int = 1,
    spacing: float = 0.5,
    data_dir=None,
    progress: Callable[[int, int], None] | None = None,
) -> Calibration:
    """Grid search of the soil parameters on profile **P1 only**.

    Each grid point runs the same ``n`` releases of P1 (``seed``) with ``scheme``; the objective
    is ``runout_wasserstein_m + lateral_wasserstein_m`` against P1's measured stop points. P2 is
    never read. ``progress(i, total)`` is called after each grid point.
    """
    start = time.perf_counter()
    points = calibration_points(grid)
    measured = authume.measured_endpoints("p1", data_dir)
    rows = []
    for i, parameters in enumerate(points):
        run = run_profile("p1", parameters, scheme, n, seed, t_max, workers, spacing, data_dir)
        metrics = profile_metrics(run, measured, data_dir)
        objective = metrics["runout_wasserstein_m"] + metrics["lateral_wasserstein_m"]
        rows.append(
            {
                **parameters.as_dict(),
                "objective_m": objective,
                "runout_wasserstein_m": metrics["runout_wasserstein_m"],
                "lateral_wasserstein_m": metrics["lateral_wasserstein_m"],
                "median_runout_simulated_m": metrics["median_runout_simulated_m"],
                "fraction_measured_inside_envelope": metrics["fraction_measured_inside_envelope"],
                "n_used": metrics["n_used"],
                "seconds": run.seconds,
            }
        )
        if progress is not None:
            progress(i, len(points))
    best = points[int(np.argmin([row["objective_m"] for row in rows]))]
    return Calibration(rows, best, scheme, int(n), int(seed), time.perf_counter() - start)
