"""Whether the products an engineer signs have settled between two rounds of a run.

A ``rocks = "auto"`` run grows in rounds (200, 400, 800, ... rocks, each the fixed run of its
count); after each round every product is compared with the round before:

* ``reach_line``: the reach line at ``reach_line_probability`` (default 0.01), the edge of the
  area of cells with reach probability at least that. Its *line cells* are the cells of the area
  with one of their four neighbours outside it (or outside the grid). A line cell *moved by more
  than one cell* when no line cell of the other round lies within one cell of it (its 3 x 3
  neighbourhood). The measure is the share of the line cells of both rounds that moved so::

      moved = (|L_k \\ N(L_k-1)| + |L_k-1 \\ N(L_k)|) / (|L_k| + |L_k-1|)

  with ``N`` the 3 x 3 neighbourhood; 0 when the line stayed within one cell everywhere. Settled
  when ``moved <= reach_line_moved`` (default 0.1: nine in ten of the line's cells within one
  cell of where they were; on the example site, ``examples/site``, the measure was 0.20, 0.24,
  0.13, 0.14, 0.063 from 400 to 6400 rocks). Nothing to judge when no cell reaches the
  probability.
* ``zones``: the hazard zones (zoned runs only): the share of the cells zoned (yellow, blue or
  red) in either round whose zone differs between the rounds. Settled when ``<= zone_changed``
  (default 0.15: the share falls as one over the square root of the rocks, on the example site
  0.44, 0.30, 0.22, 0.19, 0.14 from 400 to 6400 rocks; 0.05 would take some 50 000). Nothing to
  judge when the run is not zoned or no cell is zoned.
* ``zone_boundaries``: the hazard zones' boundaries (zoned runs only), judged as the reach line
  is: a cell zoned (yellow, blue or red) in one round *moved by more than one cell* when no cell
  of the same zone in the other round lies within one cell of it (its 3 x 3 neighbourhood). The
  measure is the share of the zoned cells of both rounds that moved so::

      moved = sum over zones z of (|Z_k \\ N(Z_k-1)| + |Z_k-1 \\ N(Z_k)|) / (|Z_k| + |Z_k-1|)

  with ``Z`` the cells of zone ``z``, the sums and ``|Z|`` over every zone; 0 when every boundary
  stayed within one cell. Settled when ``moved <= zone_boundary_moved`` (default 0.1, the reach
  line's share). A zone drawn on a grid is exact to a cell: a cell flipping between zones along
  a boundary is the boundary's own width, which ``zones`` counts and this product does not; on
  the real site (``examples/real_site``) ``zones`` falls as about ``n^-0.44`` and would need some
  30 000 rocks to reach 0.15 (``docs/performance.md``). Judged by default in place of ``zones``.
  Nothing to judge when the run is not zoned or no cell is zoned.
* ``design``: on every barrier line the 95th percentile of the kinetic energy (E95) and the
  UNI 11211-4 design velocity and height ``v_d_ms``, ``h_d_m`` (the 95th percentiles of velocity
  and passing height times the partial factors): the largest relative change between the rounds,
  ``|x_k - x_k-1| / |x_k|``, over the lines and the three values. Settled when
  ``<= design_change`` (default 0.1, within the partial factors' margin). ``E_d_kJ`` follows
  from ``v_d`` and the design block; without a configured ``mass_kg`` that block is the largest
  rock crossing the line, which grows with the rocks and never settles, so it is not judged.
  Nothing to judge without a barrier line crossed by a rock.
* ``design_intervals``: the same barrier values judged by their own 95 % intervals in the round
  (no round before needed): the largest relative half-width ``(hi - lo) / (2 |x|)`` of the
  intervals of E95, ``v_d`` and ``h_d`` (``p95_ci``, ``v_d_ci_ms``, ``h_d_ci_m`` of a barrier's
  record) over the lines. Settled when ``<= design_interval`` (default 0.1). Judged only when
  asked for. Nothing to judge without a barrier line crossed by a rock.
* ``cells``: the per-cell intervals of :mod:`tumble.rockfall.hazard.convergence`: the share of
  the cells of reach probability ``>= min_probability`` that have not converged. Settled when 0
  (every such cell converged). Nothing to judge when no cell reaches ``min_probability``. Judged
  only when asked for: at p = 0.01 a relative half-width of 0.1 takes about 38 000 rocks.

A product judged in the first round (or first judged in a later one) has no round before it: it
has not settled yet. The round at which a product settled is the first of the unbroken run of
rounds, up to the last, in which it stayed within its threshold. A run stops when every product
judged in its round has settled, at once when none is judged (nothing holds it), or at
``max_rocks``. The measures are computed from a round's results only, which are the same for any
chunking and number of threads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: the products a run can be judged on, in the order they are reported
PRODUCTS = ("reach_line", "zone_boundaries", "zones", "design", "design_intervals", "cells")
#: the products judged by default (``cells`` needs far more rocks, module docstring)
JUDGED = ("reach_line", "zone_boundaries", "design")
#: defaults of the ``[convergence]`` table
REACH_LINE_PROBABILITY = 0.01
REACH_LINE_MOVED = 0.1
ZONE_CHANGED = 0.15
ZONE_BOUNDARY_MOVED = 0.1
DESIGN_CHANGE = 0.1
DESIGN_INTERVAL = 0.1
#: the barrier values compared between rounds: (table, key) of a barrier's record
DESIGN_VALUES = (
    ("kinetic_energy_kJ", "p95"),
    ("design", "v_d_ms"),
    ("design", "h_d_m"),
)
#: the barrier values whose 95 % intervals ``design_intervals`` judges: (table, value, interval)
DESIGN_INTERVALS = (
    ("kinetic_energy_kJ", "p95", "p95_ci"),
    ("design", "v_d_ms", "v_d_ci_ms"),
    ("design", "h_d_m", "h_d_ci_m"),
)
#: what each measure is, in words (the report and summary.json)
MEASURES = {
    "reach_line": "share of the reach line's cells that moved by more than one cell",
    "zone_boundaries": "share of the zoned cells whose zone moved by more than one cell",
    "zones": "share of the zoned cells whose hazard zone changed",
    "design": "largest relative change of E95, v_d and h_d on the barrier lines",
    "design_intervals": "largest relative half-width of the 95 % intervals of E95, v_d, h_d",
    "cells": "share of the cells of reach probability >= min_probability not converged",
}
#: why a product had nothing to judge
NOTHING = {
    "reach_line": "no cell has a reach probability of at least {p:g}",
    "zone_boundaries": "no cell is zoned (or the run is not zoned)",
    "zones": "no cell is zoned (or the run is not zoned)",
    "design": "no barrier line was crossed (or the run has none)",
    "design_intervals": "no barrier line was crossed (or the run has none)",
    "cells": "no cell has a reach probability of at least {min_p:g}",
}


def line_cells(area: np.ndarray) -> np.ndarray:
    """The cells of ``area`` (boolean grid) with one of their four neighbours outside it or
    outside the grid."""
    area = np.asarray(area, dtype=bool)
    padded = np.pad(area, 1, constant_values=False)
    inside = padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    return area & ~inside


def neighbourhood(cells: np.ndarray) -> np.ndarray:
    """The cells within one cell (3 x 3) of a cell of ``cells``."""
    padded = np.pad(np.asarray(cells, dtype=bool), 1, constant_values=False)
    rows, cols = cells.shape
    near = np.zeros(cells.shape, dtype=bool)
    for dj in range(3):
        for di in range(3):
            near |= padded[dj : dj + rows, di : di + cols]
    return near


def reach_line_moved(before: np.ndarray, after: np.ndarray) -> float | None:
    """The share of the line cells of both areas farther than one cell from the other's line
    (module docstring); None when both areas are empty."""
    a, b = line_cells(before), line_cells(after)
    total = int(a.sum() + b.sum())
    if total == 0:
        return None
    moved = int(np.sum(b & ~neighbourhood(a)) + np.sum(a & ~neighbourhood(b)))
    return moved / total


def zone_changed(before: np.ndarray, after: np.ndarray) -> float | None:
    """The share of the cells zoned (code > 0) in either grid whose zone differs; None when no
    cell is zoned in either. Codes of :data:`tumble.rockfall.hazard.zoning.ZONE_NAMES`."""
    before, after = np.asarray(before), np.asarray(after)
    zoned = (before > 0) | (after > 0)
    total = int(zoned.sum())
    if total == 0:
        return None
    return int(np.sum(zoned & (before != after))) / total


def zone_boundary_moved(before: np.ndarray, after: np.ndarray) -> float | None:
    """The share of the cells zoned (code > 0) in either grid that lie farther than one cell from
    every cell of the same zone in the other grid (module docstring); None when no cell is zoned
    in either. Codes of :data:`tumble.rockfall.hazard.zoning.ZONE_NAMES`."""
    before, after = np.asarray(before), np.asarray(after)
    total = int(np.sum(before > 0) + np.sum(after > 0))
    if total == 0:
        return None
    moved = 0
    for zone in np.union1d(np.unique(before[before > 0]), np.unique(after[after > 0])):
        a, b = before == zone, after == zone
        moved += int(np.sum(b & ~neighbourhood(a)) + np.sum(a & ~neighbourhood(b)))
    return moved / total


def design_values(barriers: Sequence[Mapping[str, Any]] | None) -> dict[tuple[str, str], float]:
    """The values of :data:`DESIGN_VALUES` of every barrier line that have one, keyed by
    (barrier, value)."""
    values: dict[tuple[str, str], float] = {}
    for barrier in barriers or ():
        for table, key in DESIGN_VALUES:
            value = (barrier.get(table) or {}).get(key)
            if value is not None:
                values[(str(barrier["name"]), f"{table}.{key}")] = float(value)
    return values


def design_interval(barriers: Sequence[Mapping[str, Any]] | None) -> float | None:
    """The largest relative half-width ``(hi - lo) / (2 |x|)`` of the intervals of
    :data:`DESIGN_INTERVALS` over the barrier lines; None when no line has one; infinite for a
    value of 0 with an interval of some width, and for an interval or value that is not
    finite."""
    widest: float | None = None
    for barrier in barriers or ():
        for table, key, interval in DESIGN_INTERVALS:
            record = barrier.get(table) or {}
            value, ci = record.get(key), record.get(interval)
            if value is None or ci is None:
                continue
            width = abs(float(ci[1]) - float(ci[0])) / 2.0
            value = abs(float(value))
            if not (math.isfinite(width) and math.isfinite(value)):
                share = math.inf  # an interval that could not be estimated has not settled
            else:
                share = width / value if value > 0.0 else (0.0 if width == 0.0 else math.inf)
            widest = share if widest is None else max(widest, share)
    return widest


def design_change(
    before: Sequence[Mapping[str, Any]] | None, after: Sequence[Mapping[str, Any]] | None
) -> float | None:
    """The largest relative change ``|x_after - x_before| / |x_after|`` of the barrier values of
    :data:`DESIGN_VALUES`; None when ``after`` has none; infinite when a value is new (or 0)."""
    old, new = design_values(before), design_values(after)
    if not new:
        return None
    change = 0.0
    for key, value in new.items():
        if key not in old:
            return float("inf")
        if value == 0.0:
            if old[key] != 0.0:
                return float("inf")
            continue
        change = max(change, abs(value - old[key]) / abs(value))
    return change


@dataclass(frozen=True)
class RoundProducts:
    """The products of one round: its rocks, the cells of reach probability at least the reach
    line's, the hazard zones (None when not zoned), the barrier records of
    ``summary["barriers"]`` (None without barriers) and the per-cell record of
    :meth:`tumble.rockfall.hazard.convergence.Convergence.record`."""

    rocks: int
    reach: np.ndarray
    zone: np.ndarray | None
    barriers: Sequence[Mapping[str, Any]] | None
    cells: Mapping[str, Any]


@dataclass(frozen=True)
class Settling:
    """The thresholds of the products and which are judged (module docstring)."""

    reach_line_probability: float = REACH_LINE_PROBABILITY
    reach_line_moved: float = REACH_LINE_MOVED
    zone_changed: float = ZONE_CHANGED
    zone_boundary_moved: float = ZONE_BOUNDARY_MOVED
    design_change: float = DESIGN_CHANGE
    design_interval: float = DESIGN_INTERVAL
    judge: tuple[str, ...] = JUDGED
    min_probability: float = 0.01

    def __post_init__(self) -> None:
        unknown = [name for name in self.judge if name not in PRODUCTS]
        if unknown:
            raise ValueError(f"convergence.judge: unknown products {unknown}, known {PRODUCTS}")

    def threshold(self, product: str) -> float:
        return {
            "reach_line": self.reach_line_moved,
            "zone_boundaries": self.zone_boundary_moved,
            "zones": self.zone_changed,
            "design": self.design_change,
            "design_intervals": self.design_interval,
            "cells": 0.0,
        }[product]

    def judged(self, product: str, now: RoundProducts) -> bool:
        """Whether the round has something for ``product`` to judge."""
        if product == "reach_line":
            return bool(now.reach.any())
        if product in ("zones", "zone_boundaries"):
            return now.zone is not None and bool(np.any(now.zone > 0))
        if product == "design":
            return bool(design_values(now.barriers))
        if product == "design_intervals":
            return design_interval(now.barriers) is not None
        return int(now.cells["cells"]) > 0

    def measure(self, product: str, before: RoundProducts | None, now: RoundProducts) -> float:
        """The measure of ``product`` between the rounds (infinite without a round before)."""
        if product == "cells":
            cells = int(now.cells["cells"])
            return (cells - int(now.cells["cells_converged"])) / cells
        if product == "design_intervals":
            widest = design_interval(now.barriers)
            return math.inf if widest is None else widest
        if before is None:
            return float("inf")
        if product == "reach_line":
            value = reach_line_moved(before.reach, now.reach)
        elif product in ("zones", "zone_boundaries"):
            measure = zone_changed if product == "zones" else zone_boundary_moved
            value = (
                None if before.zone is None or now.zone is None else measure(before.zone, now.zone)
            )
        else:
            value = design_change(before.barriers, now.barriers)
        return float("inf") if value is None else value


@dataclass
class Rounds:
    """The products' measures round after round, and when each settled."""

    criteria: Settling
    #: per round: its rocks and the measure of each product judged in it (None: not judged;
    #: inf: judged without a round before to compare with)
    measures: list[dict[str, Any]] = field(default_factory=list)
    _last: RoundProducts | None = None

    def add(self, now: RoundProducts) -> dict[str, float | None]:
        """Judge a round against the one before; returns its measures."""
        c = self.criteria
        values: dict[str, float | None] = {}
        for product in c.judge:
            if c.judged(product, now):
                values[product] = c.measure(product, self._last, now)
            else:
                values[product] = None
        self.measures.append({"rocks": now.rocks, **values})
        self._last = now
        return values

    def settled_at(self, product: str) -> int | None:
        """The index of the round from which ``product`` stayed within its threshold up to the
        last round; None when it is not within it in the last round (or not judged)."""
        threshold = self.criteria.threshold(product)
        at = None
        for k in range(len(self.measures) - 1, -1, -1):
            value = self.measures[k][product]
            if value is None or not value <= threshold:
                break
            at = k
        return at

    @property
    def judged(self) -> list[str]:
        """The products judged in the last round."""
        last = self.measures[-1] if self.measures else {}
        return [p for p in self.criteria.judge if last.get(p) is not None]

    @property
    def done(self) -> bool:
        """Whether the run may stop: every product judged in the last round settled (true at
        once when none is judged)."""
        return all(self.settled_at(p) is not None for p in self.judged)

    def record(self, max_rocks: int) -> dict[str, Any]:
        """The auto run's part of ``summary.json["convergence"]``: ``converged`` (every judged
        product settled; None when nothing was judged), ``verdict`` (a sentence), ``products``
        (per product: measure, threshold, judged, converged, round and rocks at which it
        settled, last measure) and the measures of every round (``measures``)."""
        c = self.criteria
        judged = self.judged
        products: dict[str, Any] = {}
        for product in c.judge:
            at = self.settled_at(product)
            last = self.measures[-1][product] if self.measures else None
            products[product] = {
                "measure": MEASURES[product],
                "threshold": c.threshold(product),
                "judged": product in judged,
                "converged": None if product not in judged else at is not None,
                "round": None if at is None else at + 1,
                "rocks": None if at is None else self.measures[at]["rocks"],
                "last": _finite(last),
            }
            if product == "reach_line":
                products[product]["probability"] = c.reach_line_probability
            if product not in judged:
                products[product]["nothing_to_judge"] = NOTHING[product].format(
                    p=c.reach_line_probability, min_p=c.min_probability
                )
        rocks = self.measures[-1]["rocks"] if self.measures else 0
        converged = None if not judged else all(products[p]["converged"] for p in judged)
        return {
            "converged": converged,
            "verdict": self._verdict(products, judged, converged, rocks, max_rocks),
            "products": products,
            "measures": [
                {k: v if k == "rocks" else _finite(v) for k, v in m.items()} for m in self.measures
            ],
        }

    def _verdict(
        self,
        products: Mapping[str, Any],
        judged: Sequence[str],
        converged: bool | None,
        rocks: int,
        max_rocks: int,
    ) -> str:
        rounds = len(self.measures)
        if converged is None:
            why = "; ".join(f"{p}: {products[p]['nothing_to_judge']}" for p in products)
            return (
                f"nothing to judge ({why}): the run ended at round {rounds} ({rocks} rocks) "
                "without a verdict on convergence"
            )
        if converged:
            met = ", ".join(
                f"{p} at round {products[p]['round']} ({products[p]['rocks']} rocks)"
                for p in judged
            )
            return f"converged at round {rounds} ({rocks} rocks): {met}"
        missing = ", ".join(
            f"{p} ({_text(products[p]['last'])} > {products[p]['threshold']:g})"
            for p in judged
            if not products[p]["converged"]
        )
        return (
            f"not converged within convergence.max_rocks = {max_rocks} ({rocks} rocks, "
            f"{rounds} rounds): {missing}"
        )


def _finite(value: Any) -> float | None:
    """A measure for JSON: None for no value and for infinity (no round before)."""
    if value is None or not np.isfinite(value):
        return None
    return float(value)


def _text(value: float | None) -> str:
    return "no round before" if value is None else f"{value:.3g}"
