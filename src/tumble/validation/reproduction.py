"""What a reproduction of a paper's numerical examples holds, and its plain-text summary.

A :class:`Reproduction` gathers, before anything is written, the tables behind each figure
(equal-length columns, one CSV each), one :class:`FigureRecord` per figure (the PNG's file stem,
its caption and its key numbers), notes on the run as a whole and the timings. The reproductions
of :mod:`tumble.validation.leine2021` and :mod:`tumble.validation.betsch2009` return one;
``tumble reproduce`` writes it and :mod:`tumble.viz.reproduce` draws its figures.

Key numbers are JSON-ready: floats (``None`` for NaN), lists, nested dicts, complex numbers as
``[re, im]`` pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True)
class FigureRecord:
    """One figure: the PNG's file stem, what it shows, the tables behind it, its key numbers."""

    name: str
    caption: str
    tables: tuple[str, ...]
    numbers: dict


@dataclass
class Reproduction:
    """Everything a reproduction command writes, before it is written.

    ``tables`` maps a CSV file stem to equal-length columns; ``figures`` lists the figures in
    order; ``notes`` are statements about the run as a whole (schemes left out, failures).
    """

    paper: str
    reference: str
    config: dict
    figures: list[FigureRecord] = field(default_factory=list)
    tables: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def figure(self, name: str) -> FigureRecord:
        for record in self.figures:
            if record.name == name:
                return record
        raise KeyError(f"no figure {name!r}; figures are {[r.name for r in self.figures]}")

    def summary(self) -> dict:
        """A JSON-ready summary: reference, configuration, notes and each figure's numbers."""
        return {
            "paper": self.paper,
            "reference": self.reference,
            "config": self.config,
            "notes": list(self.notes),
            "figures": {
                r.name: {
                    "png": f"{r.name}.png",
                    "csv": [f"{t}.csv" for t in r.tables],
                    "caption": r.caption,
                    "numbers": r.numbers,
                }
                for r in self.figures
            },
        }

    def summary_text(self) -> str:
        """The summary as plain text, one block per figure."""
        lines = [f"Reproduction: {self.reference}", ""]
        for note in self.notes:
            lines.append(f"note: {note}")
        if self.notes:
            lines.append("")
        for r in self.figures:
            lines.append(f"{r.name}.png (data: {', '.join(f'{t}.csv' for t in r.tables)})")
            lines.append(f"  {r.caption}")
            lines.extend(_format_numbers(r.numbers, indent=2))
            lines.append("")
        return "\n".join(lines)


def _format_value(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if value is None:
        return "-"
    if isinstance(value, list):
        if value and all(isinstance(v, list) and len(v) == 2 for v in value):
            return ", ".join(f"{complex(*v):.6g}" for v in value)
        return "[" + ", ".join(_format_value(v) for v in value) + "]"
    return str(value)


def _format_numbers(numbers: dict, indent: int) -> list[str]:
    lines = []
    pad = " " * indent
    for key, value in numbers.items():
        if isinstance(value, dict) and not value:
            lines.append(f"{pad}{key}: none")
        elif isinstance(value, dict):
            lines.append(f"{pad}{key}:")
            lines.extend(_format_numbers(value, indent + 2))
        else:
            lines.append(f"{pad}{key}: {_format_value(value)}")
    return lines


def float_list(values: ArrayLike) -> list[float | None]:
    """JSON-ready list of floats (None for NaN)."""
    return [None if not math.isfinite(v) else float(v) for v in np.asarray(values, float).ravel()]


def complex_pairs(values: ArrayLike) -> list[list[float]]:
    """JSON-ready list of ``[re, im]`` pairs of complex numbers."""
    return [[float(z.real), float(z.imag)] for z in np.asarray(values, dtype=complex)]
