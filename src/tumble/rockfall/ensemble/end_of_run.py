"""The line a run ends with (:func:`summary_line`): the rocks' outcomes and the summary's
statistics, each number named by what it is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tumble.rockfall.ensemble.censoring import format_percent


def summary_line(summary: dict) -> str:
    """One line for the end of a run, every number named by what it is: the share of the rocks
    per outcome; the largest kinetic energy of each rock, by its median, 95th percentile and
    largest value over the rocks (``kinetic_energy_kJ.rock_max``: ``p50``, ``p95``, ``max``);
    the run-out by its mean, median, 95th percentile and largest value (``runout_m``); the
    wall time and the rock-steps per second."""
    f = summary["fractions"]
    e = summary["kinetic_energy_kJ"]["rock_max"]
    r = summary["runout_m"]
    rate = summary.get("rock_steps_per_s") or 0.0

    def num(value: float | None, unit: str) -> str:
        return "n/a" if value is None else f"{value:.1f} {unit}"

    def named(values: Mapping[str, Any], keys: tuple[str, ...], unit: str) -> str:
        return ", ".join(f"{STATISTIC_NAMES[k]} {num(values.get(k), unit)}" for k in keys)

    # every outcome with a share, so that the shares add up to the rocks of the run
    caught = f" caught by a net {format_percent(f['caught'])}," if f.get("caught") else ""
    failed = f" failed {format_percent(f['failed'])}," if f.get("failed") else ""
    return (
        f"{summary['n_rocks']} rocks ({summary['scheme']}): "
        f"stopped {format_percent(f['stopped'])},{caught} left {format_percent(f['left_domain'])}, "
        f"timed out {format_percent(f['timed_out'])},{failed}".rstrip(",")
        + "; "
        f"largest kinetic energy of each rock: {named(e, ('p50', 'p95', 'max'), 'kJ')}; "
        f"run-out: {named(r, ('mean', 'p50', 'p95', 'max'), 'm')}; "
        f"wall time {summary['wall_time_s']:.1f} s, {rate / 1e6:.2f} M rock-steps/s"
    )


#: how the end-of-run line names the statistics of the summary (:func:`summary_line`)
STATISTIC_NAMES = {"mean": "mean", "p50": "median", "p95": "p95", "max": "max"}
