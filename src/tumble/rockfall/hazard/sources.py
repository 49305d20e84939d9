"""Results of a run per release source and per rock class, and its hazard zoning.

A :class:`Site` records, for every rock of a run, its source (release area) and its rock class,
with the sources' names and onset frequencies and the classes' names and shares. After the
ensemble is reduced (:func:`tumble.rockfall.ensemble.reduce_chunks`), :meth:`Site.apply` adds to
the result:

* the per-rock columns ``source`` and ``rock_class`` (names) of ``deposits.csv``, beside the
  existing ``mass_kg``, ``release_x``, ``release_y``;
* ``summary["sources"]``: one record per source, ``{name, rocks, frequency, fractions,
  runout_m, kinetic_energy_max_kJ, velocity_max_ms, jump_height_max_m}`` (``frequency``: the
  source's onset events per year, or None);
* ``summary["classes"]``: one record per class, ``{name, share, rocks, mass_kg, fractions, ...}``
  with the same statistics;
* the columns ``source`` and ``rock_class`` of the exit table (``exits.gpkg``) and, when the
  sources are release areas, ``summary["exits"]["sources"]``: per source its rocks and the
  ``counts`` and ``fractions`` (of the source's rocks) of its exits per kind;

and, when every source has a frequency, returns the zoning rasters of
:mod:`tumble.rockfall.hazard.zoning` (hazard zone and annual exceedance frequencies), which
:meth:`Site.write_rasters` writes.

Statistics of a group of rocks: ``fractions`` of its rocks stopped, left_domain, timed_out,
failed (and caught, with nets); ``runout_m`` (over the rocks that ended regularly) p50 and p95;
of the per-rock maxima, ``kinetic_energy_max_kJ`` p50, p95 and max, ``velocity_max_ms`` and
``jump_height_max_m`` p95 and max. Every percentile has its 95 % distribution-free interval
(``p95_ci``, :func:`tumble.rockfall.ensemble.reduce.quantile_ci`); a group without rocks has
None for its statistics.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tumble.rockfall.ensemble.reduce import EnsembleResult, quantile_ci
from tumble.rockfall.exits import kind_counts
from tumble.rockfall.hazard.zoning import write_zoning_rasters, zoning_rasters_from_counts

#: per-rock columns summarised per group: column -> percentiles (with the maximum)
GROUP_STATISTICS = {
    "runout_m": (50, 95),
    "kinetic_energy_max_kJ": (50, 95),
    "velocity_max_ms": (95,),
    "jump_height_max_m": (95,),
}
#: statuses counted in the ``fractions`` of a group (failed: every other)
GROUP_STATUSES = ("stopped", "left_domain", "timed_out", "caught")


def _percentiles(values: np.ndarray, percentiles: Sequence[int]) -> dict[str, Any]:
    values = values[np.isfinite(values)]
    out: dict[str, Any] = {}
    for p in percentiles:
        if values.size == 0:
            out[f"p{p}"], out[f"p{p}_ci"] = None, None
        else:
            out[f"p{p}"] = float(np.percentile(values, p))
            out[f"p{p}_ci"] = quantile_ci(values, p / 100.0)
    out["max"] = float(values.max()) if values.size else None
    return out


def group_statistics(rocks: Mapping[str, np.ndarray], members: np.ndarray) -> dict[str, Any]:
    """Statistics of the rocks ``members`` (boolean mask) of a per-rock table (module
    docstring)."""
    status = np.asarray(rocks["status"])[members]
    n = int(status.size)
    fractions: dict[str, float | None] = {}
    for name in GROUP_STATUSES:
        if name == "caught" and not np.any(np.asarray(rocks["status"]) == "caught"):
            continue
        fractions[name] = float(np.mean(status == name)) if n else None
    regular = np.isin(status, GROUP_STATUSES)
    fractions["failed"] = float(np.mean(~regular)) if n else None
    out: dict[str, Any] = {"fractions": fractions}
    for column, percentiles in GROUP_STATISTICS.items():
        values = np.asarray(rocks[column], dtype=np.float64)[members]
        out[column] = _percentiles(values, percentiles)
    return out


@dataclass(frozen=True, eq=False)
class Site:
    """Sources and classes of the rocks of a run (module docstring): ``source_of`` (n,) and
    ``class_of`` (n,) index ``source_names`` / ``source_frequency`` and ``class_names`` /
    ``class_share``."""

    source_names: tuple[str, ...]
    source_frequency: tuple[float | None, ...]
    source_of: np.ndarray
    class_names: tuple[str, ...]
    class_share: tuple[float, ...]
    class_of: np.ndarray
    #: whether the sources are release areas (the exits are then also counted per source)
    areas: bool = False

    def __post_init__(self) -> None:
        n = self.source_of.shape[0]
        if self.class_of.shape != (n,):
            raise ValueError(f"class_of must have one entry per rock ({n})")
        if len(self.source_frequency) != len(self.source_names):
            raise ValueError("source_frequency must have one entry per source")
        if len(self.class_share) != len(self.class_names):
            raise ValueError("class_share must have one entry per class")
        for ids, names, what in (
            (self.source_of, self.source_names, "source_of"),
            (self.class_of, self.class_names, "class_of"),
        ):
            if n and (ids.min() < 0 or ids.max() >= len(names)):
                raise ValueError(f"{what} must index the {len(names)} names")

    @property
    def zoning(self) -> bool:
        """Whether every source carries an onset frequency (the run is zoned)."""
        return all(f is not None for f in self.source_frequency)

    def apply(self, result: EnsembleResult) -> dict:
        """Add the per-rock columns and ``summary["sources"]``, ``summary["classes"]`` to
        ``result`` (in place); return the zoning rasters (empty when a source has no
        frequency) from the result's exceedance ``counts``."""
        rocks = result.rocks
        n = int(np.asarray(rocks["rock"]).size)
        if self.source_of.shape != (n,):
            raise ValueError(f"the site describes {self.source_of.size} rocks, the run {n}")
        rocks["source"] = np.array(self.source_names, dtype=object)[self.source_of]
        rocks["rock_class"] = np.array(self.class_names, dtype=object)[self.class_of]
        sources = []
        for s, name in enumerate(self.source_names):
            members = self.source_of == s
            sources.append(
                {
                    "name": name,
                    "rocks": int(members.sum()),
                    "frequency": self.source_frequency[s],
                    **group_statistics(rocks, members),
                }
            )
        classes = []
        mass = np.asarray(rocks["mass_kg"], dtype=np.float64)
        for c, name in enumerate(self.class_names):
            members = self.class_of == c
            classes.append(
                {
                    "name": name,
                    "share": self.class_share[c],
                    "rocks": int(members.sum()),
                    "rock_fraction": float(members.mean()) if n else None,
                    "mass_kg": _percentiles(mass[members], (50, 95)),
                    **group_statistics(rocks, members),
                }
            )
        result.summary["sources"] = sources
        result.summary["classes"] = classes
        self._exits(result)
        if not self.zoning:
            return {}
        empty = [s["name"] for s in sources if s["rocks"] == 0 and s["frequency"]]
        if empty:
            result.summary.setdefault("warnings", []).append(
                f"release area(s) {', '.join(map(repr, empty))} got no rocks: their frequency is "
                "missing from the hazard zoning; raise the number of rocks"
            )
        counts = result.counts
        if counts is None:
            raise ValueError(
                "the run was not zoned: its chunks hold no exceedance counts (count_groups)"
            )
        shape = tuple(next(iter(result.rasters.values())).shape)
        frequency = [float(f) for f in self.source_frequency if f is not None]
        return zoning_rasters_from_counts(
            (int(shape[0]), int(shape[1])), counts, self.source_of, frequency
        )

    def _exits(self, result: EnsembleResult) -> None:
        """The source and class of every rock of the exit table, and with release areas the
        exits per source in ``summary["exits"]["sources"]`` (fractions of the source's
        rocks)."""
        exits = result.exits
        if exits is None:
            return
        rock = np.asarray(exits["rock"], dtype=np.int64)
        exits["source"] = np.array(self.source_names, dtype=object)[self.source_of[rock]]
        exits["rock_class"] = np.array(self.class_names, dtype=object)[self.class_of[rock]]
        summary = result.summary.get("exits")
        if not self.areas or not isinstance(summary, dict):
            return
        kinds = np.asarray(exits["kind"])
        summary["sources"] = [
            {
                "name": name,
                "rocks": int(np.sum(self.source_of == s)),
                **kind_counts(kinds[self.source_of[rock] == s], int(np.sum(self.source_of == s))),
            }
            for s, name in enumerate(self.source_names)
        ]

    def write_rasters(
        self,
        terrain: Any,
        zoning: Mapping[str, np.ndarray],
        directory: str | os.PathLike,
        ascii: bool = False,
    ) -> list[Path]:
        """Write the zoning rasters of :meth:`apply` into ``directory`` (with ``ascii`` their
        ESRI ASCII copies too; :func:`tumble.rockfall.hazard.zoning.write_zoning_rasters`);
        nothing without them."""
        return write_zoning_rasters(terrain, zoning, directory, ascii) if zoning else []


def default_site(n: int, source: str, class_name: str) -> Site:
    """One source without a frequency and one class, for a run released from a point, a line
    or a typed-in polygon with one rock shape."""
    zeros = np.zeros(n, dtype=np.int64)
    return Site((source,), (None,), zeros, (class_name,), (1.0,), zeros.copy())
