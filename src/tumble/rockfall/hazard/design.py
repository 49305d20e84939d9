"""What a fence at a barrier line must take: crossing statistics and design values.

Input: the crossings table of a run (one row per crossing of a barrier line by a rock's centre
of mass, the columns of :data:`CROSSING_COLUMNS`) and the barriers (objects with ``name``,
``kind`` (``"line"``/``"net"``), ``height`` (m or None), ``capacity`` (kJ or None) and
``length`` (m)). :func:`barrier_statistics` returns one JSON-ready dict per barrier.

**Which crossings count.** For every barrier, each rock's *first downslope crossing* of it (the
earliest ``t_s`` among its rows with ``direction == "downslope"``, i.e. from the barrier's uphill
side, the side the rocks come from, to its protected side, or for an observation line between
sources from the side its rock started on, :mod:`tumble.rockfall.site.barrier_files`; ties
broken by row order): a rock
that crosses back and forth counts once, an ``"upslope"`` crossing alone not at all
(:func:`first_downslope`). This is the sample a fence at the line would meet. The crossings of
both directions are counted beside it (``crossings_downslope``, ``crossings_upslope``: rows of
the table; ``rocks_crossing_upslope``: rocks with at least one upslope crossing), so an
observation line reports the rocks that cross it either way.

**Statistics.** For ``kinetic_energy_kJ`` (translation + rotation), ``velocity_ms``,
``passing_height_m`` (centre of mass above the terrain, vertical), ``top_height_m`` and
``rotational_energy_kJ``: ``p50``, ``p95``, ``p99`` (NumPy's default, linear percentile),
``max``, and ``p95_ci``, ``p99_ci``: 95 % percentile-bootstrap intervals (B. Efron and R. J.
Tibshirani, An Introduction to the Bootstrap, Chapman & Hall 1993, ch. 13). The crossing rocks
are resampled with replacement ``resamples`` (>= 1000) times, the percentile is taken of every
resample, and the interval is the 2.5th and 97.5th percentile of those ``resamples`` values. The
generator is ``np.random.default_rng(seed)``, created afresh for every barrier, so a barrier's
intervals depend only on its own crossings and the seed: the same crossings and seed give the
same intervals, whatever other barriers the run had (a checking engineer can recompute them from
``crossings.parquet``). A percentile has sampling error; the width of its interval says whether
the number of rocks was enough.

For a net (and ``None`` for a plain line), over the same crossing rocks:

* ``overtopping_probability``: the fraction whose passing height (centre of mass) is *above* the
  net's height, ``passing_height_m > height`` (the criterion the simulation uses for a net,
  :mod:`tumble.rockfall.step.nets`); None for a net without a height;
* ``capacity_exceedance_probability``: the fraction whose kinetic energy (translation +
  rotation) is *above* the capacity, ``kinetic_energy_kJ > capacity``, whatever their height
  (rocks that overtop included); None for a net without a capacity.

Both are conditional on a rock reaching the line (divide by ``fraction_crossing`` for the
fraction of all released rocks). ``outcomes`` counts the outcomes the simulation recorded for
those crossings.

**Design values, UNI 11211-4** (partial factor method; UNI 11211-4:2012/2018, Rockfall
protective measures, Part 4: definitive and executive design; summarised in D. Peila and
C. Ronco, Technical Note: Design of rockfall net fences and the new ETAG 027 European guideline,
Nat. Hazards Earth Syst. Sci. 9 (2009) 1291-1298, doi:10.5194/nhess-9-1291-2009, section 5)::

    v_d = v_t gamma_Tr gamma_Dp               v_t: 95th percentile of the velocity
    m_d = m gamma_VolF gamma_gamma            m = Vol_b rho: the design block
    E_d = m_d v_d^2 / 2
    h_d = h_t gamma_Tr gamma_Dp               h_t: 95th percentile of the passing height
    verification of a kit:  E_d <= E_bar / gamma_E,   H >= h_d + f_min

The velocity is the translational speed of the centre of mass (the standard's energy is that of
the design block at the design velocity); the simulated kinetic energies, rotation included, are
reported beside it. ``E_bar`` is the kit's tested energy level (MEL or SEL, ETAG 027 / EAD
340059-00-0106); here the net's ``capacity``. The intervals ``v_d_ci_ms``, ``E_d_ci_kJ`` and
``h_d_ci_m`` are the design values at the ends of the bootstrap intervals of ``v_t`` and ``h_t``
(the design values are increasing functions of them).

**ONR 24810** characteristic values (``onr_24810``): the 95th and 99th percentiles of energy,
velocity and passing height, with their intervals (the characteristic values of UNI 11211-4:2018
and ONR 24810:2021 are the 95th or 99th percentiles of these distributions: M. Marchelli, A
design method for double line of rockfall net fences in the framework of probabilistic trajectory
analyses, GEAM 166 (2022), doi:10.19199/2022.166.1121-9041.019).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tumble import _check

if TYPE_CHECKING:
    from tumble.rockfall.ensemble.reduce import EnsembleResult

#: the columns of a crossings table and what they hold
CROSSING_COLUMNS = {
    "rock": "rock index",
    "barrier": "barrier name",
    "t_s": "time of the crossing, s",
    "x": "x of the crossing point, m",
    "y": "y of the crossing point, m",
    "along_m": "distance along the barrier line from its first vertex, m",
    "passing_height_m": "centre of mass above the terrain (vertical), m",
    "top_height_m": "highest point of the rock above the terrain, m",
    "velocity_ms": "speed of the centre of mass, m/s",
    "kinetic_energy_kJ": "kinetic energy, translation + rotation, kJ",
    "rotational_energy_kJ": "rotational kinetic energy, kJ",
    "rotational_velocity_rad_s": "magnitude of the angular velocity, rad/s",
    "mass_kg": "mass of the rock, kg",
    "direction": '"downslope" (from the side the rock comes from) or "upslope"',
    "outcome": '"passed", "caught", "overtopped" or "broke_through"',
}

#: the quantities whose percentiles are reported, in the order of the summary
QUANTITIES = (
    "kinetic_energy_kJ",
    "velocity_ms",
    "passing_height_m",
    "top_height_m",
    "rotational_energy_kJ",
)

#: outcomes of a crossing (as in :mod:`tumble.rockfall.step.nets`)
OUTCOMES = ("passed", "caught", "overtopped", "broke_through")

#: directions of a crossing
DIRECTIONS = ("downslope", "upslope")

#: the percentiles reported and the confidence level of their intervals
PERCENTILES = (50, 95, 99)
CI_LEVEL = 0.95

#: fewest bootstrap resamples accepted
MIN_RESAMPLES = 1000

#: most resampled values held at once (resamples x rocks) while bootstrapping
_BOOTSTRAP_BLOCK = 1 << 22


class BarrierLike(Protocol):
    """What :func:`barrier_statistics` reads of a barrier."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def height(self) -> float | None: ...
    @property
    def capacity(self) -> float | None: ...
    @property
    def length(self) -> float: ...
    @property
    def uphill(self) -> str | None: ...


@dataclass(frozen=True)
class DesignFactors:
    """The partial factors of UNI 11211-4 and the design block: user inputs, reported beside
    the design values.

    * ``gamma_tr`` (gamma_Tr, reliability of the trajectory simulation): 1.02 when its
      parameters come from back-analysis of the site, 1.10 when from the literature (default);
    * ``gamma_dp`` (gamma_Dp, quality of the topography): 1.02 for a high-quality survey,
      1.10 otherwise (default);
    * ``gamma_vol`` (gamma_VolF, precision of the block survey): 1.02 for a precise survey of
      the design block, 1.10 otherwise (default);
    * ``gamma_gamma`` (unit weight of the rock): >= 1.00, usually 1.00 (default);
    * ``gamma_e`` (gamma_E, the kit's energy partial factor in ``E_d <= E_bar / gamma_E``):
      1.20 (default) when ``E_bar`` is the kit's maximum energy level MEL, which is tested with
      one impact only and leaves the kit damaged; 1.00 when it is the service energy level SEL
      (tested with two impacts, ETAG 027). The default suits tumble's net ``capacity``, the
      energy above which the net is broken through, i.e. a MEL; set 1.00 when the capacity given
      is a SEL;
    * ``f_min_m``: free board above the design height, at least 0.5 m and related to the block
      size (at most about half the block's size), default 0.5 m;
    * ``mass_kg``: the design block mass ``Vol_b rho`` (kg); None: the largest rock mass among
      the rocks counted at the barrier.

    Sources: the values of gamma_Tr, gamma_Dp, gamma_VolF, gamma_gamma and f_min, and the
    verification ``E_d < E_barrier / gamma_e`` with ``E_barrier`` the MEL or SEL, as tabulated
    for UNI 11211-4:2012 by Rocscience's RocFall documentation ("Verification following UNI
    11211-4", citing UNI 11211-4:2012 and Peila and Ronco 2009); the equations and gamma_E for
    MEL and SEL: Peila and Ronco, Nat. Hazards Earth Syst. Sci. 9 (2009) 1291-1298, section 5.
    The public summaries consulted state the form of the energy verification but not the number
    for gamma_E; 1.20 (MEL) / 1.00 (SEL) is Peila and Ronco's, to be checked against the
    edition of UNI 11211-4 in force before a design relies on it.
    """

    standard: str = "UNI 11211-4"
    gamma_tr: float = 1.10
    gamma_dp: float = 1.10
    gamma_vol: float = 1.10
    gamma_gamma: float = 1.00
    gamma_e: float = 1.20
    f_min_m: float = 0.5
    mass_kg: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.standard, str) or not self.standard.strip():
            raise ValueError(f"design standard must be a non-empty string, got {self.standard!r}")
        for name in ("gamma_tr", "gamma_dp", "gamma_vol", "gamma_gamma", "gamma_e", "f_min_m"):
            value = _check.strict_positive(getattr(self, name), f"design {name}")
            object.__setattr__(self, name, value)
        if self.mass_kg is not None:
            mass = _check.strict_positive(self.mass_kg, "design mass_kg (the design block)")
            object.__setattr__(self, "mass_kg", mass)

    @classmethod
    def from_config(cls, section: Mapping[str, Any] | None) -> DesignFactors:
        """Factors from a ``[design]`` table: any of the field names, a missing key or None
        taking the default; None: every default. Unknown keys are an error."""
        if section is None:
            return cls()
        if not isinstance(section, Mapping):
            raise ValueError(f"[design] must be a table, got {section!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(key) for key in section if key not in known)
        if unknown:
            raise ValueError(f"[design] has unknown keys {unknown}; known keys: {sorted(known)}")
        return cls(**{key: value for key, value in section.items() if value is not None})

    def as_dict(self) -> dict[str, Any]:
        """The factors as a JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def first_downslope(crossings: Mapping[str, np.ndarray], barrier: str) -> np.ndarray:
    """Row indices of each rock's first downslope crossing of ``barrier``, in rock order: the
    earliest ``t_s`` among the rock's ``"downslope"`` rows of that barrier (equal times: the
    earlier row)."""
    names = np.asarray(crossings["barrier"]).astype(str)
    direction = np.asarray(crossings["direction"]).astype(str)
    rows = np.flatnonzero((names == barrier) & (direction == "downslope"))
    if rows.size == 0:
        return rows
    rock = np.asarray(crossings["rock"])[rows]
    t = np.asarray(crossings["t_s"], dtype=float)[rows]
    order = np.lexsort((rows, t, rock))
    _, first = np.unique(rock[order], return_index=True)
    return rows[order[first]]


def bootstrap_percentile_ci(
    values: np.ndarray,
    percentiles: Sequence[float],
    rng: np.random.Generator,
    resamples: int = MIN_RESAMPLES,
    level: float = CI_LEVEL,
) -> np.ndarray:
    """Percentile-bootstrap intervals of the ``percentiles`` of ``values``: shape
    ``(len(percentiles), 2)``. The values are resampled with replacement ``resamples`` times
    (in blocks of resamples, vectorised), NumPy's default percentile is taken of each resample,
    and the interval is the ``(1 -+ level) / 2`` percentile of those."""
    return _bootstrap({"v": np.asarray(values, dtype=float)}, percentiles, rng, resamples, level)[
        "v"
    ]


def _bootstrap(
    columns: Mapping[str, np.ndarray],
    percentiles: Sequence[float],
    rng: np.random.Generator,
    resamples: int,
    level: float,
) -> dict[str, np.ndarray]:
    """Intervals for several columns of the same rocks, from one set of resampled rocks."""
    n = next(iter(columns.values())).size
    estimates = {name: np.empty((len(percentiles), resamples)) for name in columns}
    block = max(1, _BOOTSTRAP_BLOCK // max(n, 1))
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        picks = rng.integers(0, n, size=(stop - start, n))
        for name, values in columns.items():
            estimates[name][:, start:stop] = np.percentile(values[picks], percentiles, axis=1)
    tails = [50.0 * (1.0 - level), 50.0 * (1.0 + level)]
    return {name: np.percentile(estimate, tails, axis=1).T for name, estimate in estimates.items()}


def _number(value: float | None) -> float | None:
    return None if value is None else float(value)


def _interval(values: np.ndarray | None) -> list[float] | None:
    return None if values is None else [float(values[0]), float(values[1])]


def _quantity_stats(
    values: np.ndarray | None, intervals: np.ndarray | None
) -> dict[str, float | list[float] | None]:
    if values is None or values.size == 0 or intervals is None:
        out: dict[str, float | list[float] | None] = {f"p{p}": None for p in PERCENTILES}
        out.update({"max": None, "p95_ci": None, "p99_ci": None})
        return out
    p50, p95, p99 = np.percentile(values, PERCENTILES)
    return {
        "p50": float(p50),
        "p95": float(p95),
        "p99": float(p99),
        "max": float(values.max()),
        "p95_ci": _interval(intervals[1]),
        "p99_ci": _interval(intervals[2]),
    }


def _validate_table(crossings: Mapping[str, np.ndarray]) -> int:
    missing = [name for name in CROSSING_COLUMNS if name not in crossings]
    if missing:
        raise ValueError(f"the crossings table lacks the columns {missing}")
    lengths = {name: np.asarray(crossings[name]).shape for name in CROSSING_COLUMNS}
    rows = {shape[0] if len(shape) == 1 else -1 for shape in lengths.values()}
    if len(rows) != 1 or -1 in rows:
        raise ValueError(f"the crossings columns must be 1-D of one length, got {lengths}")
    n = rows.pop()
    if n:
        direction = set(np.asarray(crossings["direction"]).astype(str).tolist())
        if not direction <= set(DIRECTIONS):
            raise ValueError(
                f"crossing direction must be one of {DIRECTIONS}, got {sorted(direction)}"
            )
        outcome = set(np.asarray(crossings["outcome"]).astype(str).tolist())
        if not outcome <= set(OUTCOMES):
            raise ValueError(f"crossing outcome must be one of {OUTCOMES}, got {sorted(outcome)}")
    return n


def _optional(value: Any, name: str) -> float | None:
    return None if value is None else _check.positive(value, name)


def barrier_statistics(
    crossings: Mapping[str, np.ndarray],
    barriers: Sequence[BarrierLike],
    n_rocks: int,
    factors: DesignFactors,
    seed: int,
    resamples: int = MIN_RESAMPLES,
    sides: Sequence[Mapping[str, Any] | None] | None = None,
) -> list[dict[str, Any]]:
    """One JSON-ready dict per barrier, in the order of ``barriers``, over each rock's first
    downslope crossing of it (module docstring: definitions and sources).

    Keys: ``name``, ``kind``, ``uphill`` (the barrier's uphill side, ``"left"`` or ``"right"``
    seen along its line), ``length_m``, ``height_m``, ``capacity_kJ``, ``rocks_crossing``,
    ``fraction_crossing`` (of ``n_rocks``, the rocks released), ``crossings_downslope``,
    ``crossings_upslope`` and ``rocks_crossing_upslope`` (both directions, module docstring),
    the keys of ``sides[i]`` when given (how the side was decided:
    :meth:`tumble.rockfall.site.barrier_files.BarrierSide.record`), one dict per quantity of
    :data:`QUANTITIES` (``p50``, ``p95``, ``p99``, ``max``, ``p95_ci``, ``p99_ci``),
    ``overtopping_probability`` and ``capacity_exceedance_probability`` (nets; None otherwise),
    ``outcomes`` (counts), ``design`` (UNI 11211-4: the factors, ``mass_kg``, ``m_d_kg``,
    ``v_t_ms``, ``v_d_ms``, ``E_d_kJ``, ``h_t_m``, ``h_d_m``, ``required_height_m``, their
    intervals, and for a net ``capacity_kJ``, ``capacity_design_kJ`` = capacity / gamma_E,
    ``energy_ok``, ``height_m``, ``height_ok``), ``onr_24810`` and ``bootstrap`` (resamples,
    seed, level). A barrier no rock crossed has counts 0 and None for every value that needs a
    crossing. No NaN: every number is a float or an int.
    """
    n_rows = _validate_table(crossings)
    n_rocks = _check.positive_int(n_rocks, "n_rocks")
    if isinstance(resamples, bool) or not isinstance(resamples, int | np.integer):
        raise ValueError(f"resamples must be an integer, got {resamples!r}")
    if resamples < MIN_RESAMPLES:
        raise ValueError(f"resamples must be at least {MIN_RESAMPLES}, got {resamples}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(factors, DesignFactors):
        raise ValueError(f"factors must be a DesignFactors, got {type(factors).__name__}")
    names = [str(b.name) for b in barriers]
    if len(set(names)) != len(names):
        raise ValueError(f"barrier names must be unique, got {names}")
    if sides is not None and len(sides) != len(barriers):
        raise ValueError(f"sides must have one entry per barrier ({len(barriers)})")

    out = []
    for i, barrier in enumerate(barriers):
        rows = first_downslope(crossings, str(barrier.name)) if n_rows else np.empty(0, int)
        entry = _one_barrier(crossings, barrier, rows, n_rocks, factors, int(seed), int(resamples))
        counts = _direction_counts(crossings, str(barrier.name)) if n_rows else (0, 0, 0)
        head = {
            "name": entry.pop("name"),
            "kind": entry.pop("kind"),
            "uphill": getattr(barrier, "uphill", None),
            **((sides[i] or {}) if sides is not None else {}),
        }
        head.update(entry)
        head["crossings_downslope"], head["crossings_upslope"] = counts[0], counts[1]
        head["rocks_crossing_upslope"] = counts[2]
        out.append(head)
    return out


def _direction_counts(crossings: Mapping[str, np.ndarray], barrier: str) -> tuple[int, int, int]:
    """Rows of ``barrier`` downslope and upslope, and the rocks with an upslope row."""
    mine = np.asarray(crossings["barrier"]).astype(str) == barrier
    direction = np.asarray(crossings["direction"]).astype(str)[mine]
    upslope = direction == "upslope"
    rocks = np.unique(np.asarray(crossings["rock"])[mine][upslope])
    return int(np.count_nonzero(direction == "downslope")), int(upslope.sum()), int(rocks.size)


def _one_barrier(
    crossings: Mapping[str, np.ndarray],
    barrier: BarrierLike,
    rows: np.ndarray,
    n_rocks: int,
    factors: DesignFactors,
    seed: int,
    resamples: int,
) -> dict[str, Any]:
    name = str(barrier.name)
    kind = str(barrier.kind)
    if kind not in ("line", "net"):
        raise ValueError(f"barrier {name!r}: kind must be 'line' or 'net', got {kind!r}")
    height = _optional(barrier.height, f"barrier {name!r} height")
    capacity = _optional(barrier.capacity, f"barrier {name!r} capacity")
    length = _check.positive(barrier.length, f"barrier {name!r} length")
    n = int(rows.size)
    if n > n_rocks:
        raise ValueError(
            f"barrier {name!r}: {n} rocks cross it but only n_rocks = {n_rocks} were released"
        )

    columns = {q: np.asarray(crossings[q], dtype=float)[rows] for q in QUANTITIES}
    mass = np.asarray(crossings["mass_kg"], dtype=float)[rows]
    for column, values in (*columns.items(), ("mass_kg", mass)):
        if not np.all(np.isfinite(values)):
            raise ValueError(f"barrier {name!r}: {column} of a counted crossing is not finite")
    intervals = (
        _bootstrap(columns, PERCENTILES, np.random.default_rng(seed), resamples, CI_LEVEL)
        if n
        else None
    )
    stats = {
        q: _quantity_stats(columns[q] if n else None, None if intervals is None else intervals[q])
        for q in QUANTITIES
    }

    outcome = np.asarray(crossings["outcome"]).astype(str)[rows]
    result: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "length_m": length,
        "height_m": height,
        "capacity_kJ": capacity,
        "rocks_crossing": n,
        "fraction_crossing": n / n_rocks,
    }
    result.update(stats)
    is_net = kind == "net"
    result["overtopping_probability"] = (
        float(np.mean(columns["passing_height_m"] > height))
        if is_net and height is not None and n
        else None
    )
    result["capacity_exceedance_probability"] = (
        float(np.mean(columns["kinetic_energy_kJ"] > capacity))
        if is_net and capacity is not None and n
        else None
    )
    result["outcomes"] = {o: int(np.count_nonzero(outcome == o)) for o in OUTCOMES}
    result["design"] = _design(
        factors,
        stats,
        float(mass.max()) if n else None,
        height if is_net else None,
        capacity if is_net else None,
    )
    result["onr_24810"] = {
        "standard": "ONR 24810",
        "percentiles": [95, 99],
        **{
            q: {key: stats[q][key] for key in ("p95", "p95_ci", "p99", "p99_ci")}
            for q in ("kinetic_energy_kJ", "velocity_ms", "passing_height_m")
        },
    }
    result["bootstrap"] = {
        "method": "percentile bootstrap over the crossing rocks",
        "resamples": resamples,
        "seed": seed,
        "level": CI_LEVEL,
    }
    return result


def _scaled(values: list[float] | None, factor: float) -> list[float] | None:
    return None if values is None else [v * factor for v in values]


def _design(
    factors: DesignFactors,
    stats: Mapping[str, Mapping[str, Any]],
    largest_mass: float | None,
    height: float | None,
    capacity: float | None,
) -> dict[str, Any]:
    """The UNI 11211-4 design values and the verification of a net (module docstring)."""
    design: dict[str, Any] = factors.as_dict()
    mass = factors.mass_kg if factors.mass_kg is not None else largest_mass
    design["mass_kg"] = _number(mass)
    design["mass_source"] = (
        "configured" if factors.mass_kg is not None else "largest rock crossing the barrier"
    )
    m_d = None if mass is None else mass * factors.gamma_vol * factors.gamma_gamma
    velocity_factor = factors.gamma_tr * factors.gamma_dp
    v_t = stats["velocity_ms"]["p95"]
    h_t = stats["passing_height_m"]["p95"]
    v_d = None if v_t is None else v_t * velocity_factor
    h_d = None if h_t is None else h_t * velocity_factor
    v_d_ci = _scaled(stats["velocity_ms"]["p95_ci"], velocity_factor)

    def energy(v: float) -> float:
        assert m_d is not None
        return 0.5 * m_d * v * v / 1000.0

    e_d = None if (m_d is None or v_d is None) else energy(v_d)
    design.update(
        {
            "m_d_kg": _number(m_d),
            "v_t_ms": _number(v_t),
            "v_d_ms": _number(v_d),
            "v_d_ci_ms": v_d_ci,
            "E_d_kJ": _number(e_d),
            "E_d_ci_kJ": (None if (m_d is None or v_d_ci is None) else [energy(v) for v in v_d_ci]),
            "h_t_m": _number(h_t),
            "h_d_m": _number(h_d),
            "h_d_ci_m": _scaled(stats["passing_height_m"]["p95_ci"], velocity_factor),
            "required_height_m": None if h_d is None else h_d + factors.f_min_m,
        }
    )
    capacity_design = None if capacity is None else capacity / factors.gamma_e
    design.update(
        {
            "capacity_kJ": capacity,
            "capacity_design_kJ": capacity_design,
            "energy_ok": (
                None if (capacity_design is None or e_d is None) else bool(e_d <= capacity_design)
            ),
            "height_m": height,
            "height_ok": (
                None if (height is None or h_d is None) else bool(height >= h_d + factors.f_min_m)
            ),
        }
    )
    for key, value in design.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"design value {key} is not finite: {value}")
    return design


def add_barrier_statistics(
    result: EnsembleResult,
    barriers: Sequence[BarrierLike],
    factors: DesignFactors | None = None,
    seed: int | None = 0,
    sides: Sequence[Mapping[str, Any] | None] | None = None,
) -> None:
    """``result.summary["barriers"]`` from the run's crossings table (in place): the
    :func:`barrier_statistics` of every barrier over the rocks released, with ``factors``
    (default ``DesignFactors()``), the run's ``seed`` for the bootstrap and how the barriers'
    sides were decided (``sides``). Nothing for a run without barriers."""
    if result.crossings is None or not barriers:
        return
    result.summary["barriers"] = barrier_statistics(
        result.crossings,
        barriers,
        int(np.asarray(result.rocks["rock"]).size),
        factors or DesignFactors(),
        seed=0 if seed is None else int(seed),
        sides=sides,
    )
