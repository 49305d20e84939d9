"""Figures of a barrier line: what a fence there must take, and where along it the load comes.

:func:`plot_barrier` writes, for one barrier and over each rock's first downslope crossing of it
(:func:`tumble.rockfall.hazard.design.first_downslope`, the sample of
:func:`tumble.rockfall.hazard.design.barrier_statistics`):

* ``barrier_<slug>_exceedance.png``: the empirical exceedance curves ``1 - F`` (the fraction of
  the crossing rocks at or above a value, log scale) of the kinetic energy (kJ) and of the passing
  height (m), with the 95th and 99th percentiles and their bootstrap intervals (shaded), the UNI
  11211-4 design energy ``E_d`` and design height ``h_d`` and required height ``h_d + f_min``,
  and for a net its capacity, ``capacity / gamma_E`` and its height;
* ``barrier_<slug>_along.png``: a histogram of the crossing positions along the line (distance
  from its first vertex, m), stacked by outcome.

``slug`` is :func:`barrier_slug` of the name. A barrier no rock crossed still gets both files,
saying so.
"""

from __future__ import annotations

import os
import re
import textwrap
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.figure import Figure

from tumble.rockfall.hazard.design import OUTCOMES, first_downslope
from tumble.viz.png import save_figure

#: colours of the marks: percentiles, design values, the net
P95_COLOR, P99_COLOR, DESIGN_COLOR, NET_COLOR = "tab:orange", "tab:red", "tab:purple", "black"
OUTCOME_COLORS = {
    "passed": "tab:blue",
    "caught": "tab:green",
    "overtopped": "tab:orange",
    "broke_through": "tab:red",
}


def barrier_slug(name: str) -> str:
    """A file-safe version of a barrier name: ASCII letters, digits, ``.``, ``-`` and ``_``
    only, runs of anything else as one ``_``, lower case: ``"fence A/B (north)"`` ->
    ``"fence_a_b_north"``; ``"barrier"`` when nothing is left."""
    ascii_name = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9.-]+", "_", ascii_name).strip("._-").lower()
    return slug or "barrier"


def _exceedance(ax: Any, values: np.ndarray) -> None:
    """The fraction of values >= x against x, as a step curve."""
    x = np.sort(values)
    n = x.size
    fraction = (n - np.arange(n)) / n
    ax.step(x, fraction, where="post", color="tab:blue", label=f"{n} crossing rocks")
    ax.set_yscale("log")
    ax.set_ylim(0.5 / n, 1.5)


def _mark_percentiles(ax: Any, stats: Mapping[str, Any], unit: str) -> None:
    for key, color in (("p95", P95_COLOR), ("p99", P99_COLOR)):
        value, interval = stats.get(key), stats.get(f"{key}_ci")
        if value is None:
            continue
        ax.axvline(value, color=color, lw=1.2, label=f"{key} = {value:.3g} {unit}")
        if interval is not None:
            ax.axvspan(interval[0], interval[1], color=color, alpha=0.15, lw=0)


def _mark(ax: Any, value: float | None, label: str, color: str, style: str) -> None:
    if value is not None:
        ax.axvline(value, color=color, ls=style, lw=1.2, label=label)


def _fitted(text: str, width_in: float, fontsize: float) -> tuple[str, int]:
    """``text`` broken into lines that fit ``width_in`` inches at ``fontsize`` points (a
    character of the default sans serif font is at most about 0.62 em wide on average), and
    the number of lines."""
    lines = textwrap.wrap(text, max(20, int(width_in * 72.0 / (0.62 * fontsize))))
    return "\n".join(lines), len(lines)


def _top(fig: Any, lines: int, fontsize: float) -> float:
    """The top of the axes (a fraction of ``fig``'s height) under a title of ``lines`` lines."""
    return 1.0 - (0.12 + lines * 1.25 * fontsize / 72.0 + 0.08) / fig.get_figheight()


def _no_crossing(ax: Any) -> None:
    ax.text(0.5, 0.5, "no rock crossed", ha="center", va="center", transform=ax.transAxes)


def plot_barrier(
    stats: Mapping[str, Any],
    crossings: Mapping[str, np.ndarray],
    barrier: Any,
    directory: str | os.PathLike[str],
) -> list[Path]:
    """Write the exceedance and along-line figures of ``barrier`` into ``directory`` (created
    if needed) and return their paths. ``stats`` is the barrier's dict of
    :func:`tumble.rockfall.hazard.design.barrier_statistics`; ``crossings`` the crossings table;
    ``barrier`` the object with ``name``, ``kind``, ``height``, ``capacity``, ``length``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    name = str(barrier.name)
    slug = barrier_slug(name)
    rows = first_downslope(crossings, name) if len(crossings["rock"]) else np.empty(0, int)
    design = stats.get("design") or {}
    is_net = str(barrier.kind) == "net"
    title = f"{name} ({'net' if is_net else 'observation line'}"
    if stats.get("uphill") is not None:
        title += f"; rocks from its {stats['uphill']}, seen from its first point"
    title += ")"

    # exceedance of energy and passing height
    fig = Figure(figsize=(11, 4.5))
    left, right = fig.subplots(1, 2)
    panels = (
        (left, "kinetic_energy_kJ", "kinetic energy at the crossing (kJ)", "kJ"),
        (right, "passing_height_m", "passing height of the centre of mass (m)", "m"),
    )
    for ax, column, label, unit in panels:
        values = np.asarray(crossings[column], dtype=float)[rows]
        ax.set_xlabel(label)
        ax.set_ylabel("fraction of crossing rocks at or above (1 - F)")
        ax.grid(alpha=0.3, which="both")
        if values.size == 0:
            _no_crossing(ax)
            continue
        _exceedance(ax, values)
        _mark_percentiles(ax, stats.get(column) or {}, unit)
    e_d, h_d = design.get("E_d_kJ"), design.get("h_d_m")
    _mark(left, e_d, f"E_d = {e_d:.3g} kJ" if e_d is not None else "", DESIGN_COLOR, "--")
    _mark(right, h_d, f"h_d = {h_d:.3g} m" if h_d is not None else "", DESIGN_COLOR, "--")
    required = design.get("required_height_m")
    if required is not None:
        _mark(right, required, f"h_d + f_min = {required:.3g} m", DESIGN_COLOR, ":")
    if is_net and barrier.capacity is not None:
        capacity = float(barrier.capacity)
        _mark(left, capacity, f"capacity = {capacity:.3g} kJ", NET_COLOR, "-")
        reduced = design.get("capacity_design_kJ")
        if reduced is not None:
            label = f"capacity / gamma_E = {reduced:.3g} kJ"
            _mark(left, reduced, label, NET_COLOR, ":")
    if is_net and barrier.height is not None:
        height = float(barrier.height)
        _mark(right, height, f"net height = {height:.3g} m", NET_COLOR, "-")
    for ax in (left, right):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper right")
    heading, lines = _fitted(
        f"{title}: first downslope crossings, 95 % bootstrap intervals shaded", 10.4, 12
    )
    fig.suptitle(heading, fontsize=12)
    # fixed subplot parameters for this size and these labels (no layout pass over the text)
    top = _top(fig, lines, 12)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.12, top=top, wspace=0.22)
    exceedance_path = directory / f"barrier_{slug}_exceedance.png"
    save_figure(fig, exceedance_path, 130)

    # where along the line the rocks cross
    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    length = float(barrier.length)
    along = np.clip(np.asarray(crossings["along_m"], dtype=float)[rows], 0.0, length)
    outcome = np.asarray(crossings["outcome"]).astype(str)[rows]
    bins = np.linspace(0.0, length, max(5, min(50, int(np.sqrt(max(along.size, 1))) + 1)) + 1)
    if along.size:
        present = [o for o in OUTCOMES if np.any(outcome == o)]
        ax.hist(
            [along[outcome == o] for o in present],
            bins=bins.tolist(),
            stacked=True,
            color=[OUTCOME_COLORS[o] for o in present],
            label=present,
        )
        ax.set_ylim(0.0, 1.2 * ax.get_ylim()[1])
        ax.legend(fontsize=8, loc="upper right", ncol=len(present))
    else:
        _no_crossing(ax)
    ax.set_xlim(0.0, length)
    ax.set_xlabel("distance along the barrier from its first vertex (m)")
    ax.set_ylabel("rocks crossing (first downslope crossing)")
    ax.grid(alpha=0.3)
    # centred over the axes, which leave 0.09 of the figure left and 0.02 right
    heading, lines = _fitted(f"{title}: where along the line the rocks cross", 7.6, 10)
    fig.set_figheight(4.0 + 0.17 * (lines - 1))
    ax.set_title(heading, fontsize=10)
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.12, top=_top(fig, lines, 10))
    along_path = directory / f"barrier_{slug}_along.png"
    save_figure(fig, along_path, 130)
    return [exceedance_path, along_path]


def barrier_lines(barriers: list[dict]) -> list[str]:
    """One line per barrier for the screen: the side its rocks come from, crossings (both ways
    when some went upslope), p95 energy and passing height with their intervals, the design
    values and, for a net, the verification."""

    def value(entry: dict, key: str, unit: str) -> str:
        v, ci = entry.get(key), entry.get(key + "_ci")
        if v is None:
            return "n/a"
        text = f"{v:.1f} {unit}"
        return text + (f" [{ci[0]:.1f}, {ci[1]:.1f}]" if ci else "")

    lines = []
    for b in barriers:
        text = f"{b['kind']} {b['name']!r}: {b['rocks_crossing']} rocks crossed downslope"
        if b.get("uphill") is not None:
            text += f" (from its {b['uphill']})"
        if b.get("rocks_crossing_upslope"):
            text += f", {b['rocks_crossing_upslope']} upslope"
        if b["rocks_crossing"]:
            d = b["design"]
            text += (
                f"; energy p95 {value(b['kinetic_energy_kJ'], 'p95', 'kJ')}, passing height p95 "
                f"{value(b['passing_height_m'], 'p95', 'm')}; {d['standard']}: "
                f"E_d {d['E_d_kJ']:.0f} kJ, h_d {d['h_d_m']:.2f} m"
            )
            if d.get("energy_ok") is not None:
                text += f", energy {'verified' if d['energy_ok'] else 'NOT verified'}"
            if d.get("height_ok") is not None:
                text += f", height {'verified' if d['height_ok'] else 'NOT verified'}"
        lines.append(text)
    return lines
