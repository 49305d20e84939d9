"""Figure of the Tschamut held-out check: run-out ECDFs, measured against each soil category."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import os
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

from tumble.validation.authume import kolmogorov_smirnov


def plot_runout_ecdf(
    measured: ArrayLike,
    simulated: Mapping[str, ArrayLike],
    path: str | os.PathLike[str],
    title: str = "",
) -> None:
    """ECDFs of the horizontal run-out (release to stop), measured (black) and one curve per
    label of ``simulated``; the legend gives each curve's median ratio to the measured median
    and the two-sample Kolmogorov-Smirnov p-value. The run-out axis is logarithmic, so that
    rocks stopping centimetres from their release remain visible."""
    observed = np.asarray(measured, dtype=np.float64)
    if observed.size == 0:
        raise ValueError("no measured run-out to draw")
    fig, ax = plt.subplots(figsize=(9.0, 5.5))
    floor = 0.01

    def ecdf(values: np.ndarray, **style: object) -> None:
        x = np.maximum(np.sort(values), floor)
        y = np.arange(1, x.size + 1) / x.size
        ax.step(np.r_[x[0], x], np.r_[0.0, y], where="post", **style)  # type: ignore[arg-type]

    median = float(np.median(observed))
    ecdf(observed, color="k", lw=2.5, label=f"measured (n = {observed.size})")
    colors = plt.get_cmap("tab10")
    for i, (label, values) in enumerate(simulated.items()):
        values = np.asarray(values, dtype=np.float64)
        if values.size == 0:
            continue
        _, p = kolmogorov_smirnov(observed, values)
        ratio = float(np.median(values)) / median
        ecdf(
            values,
            color=colors(i % 10),
            lw=1.4,
            ls="-" if i < 10 else "--",
            label=f"{label} (n = {values.size}): median ratio {ratio:.2f}, KS p = {p:.2g}",
        )
    ax.set_xscale("log")
    ax.set_xlabel(f"horizontal run-out, release to stop (m; below {floor} m drawn at {floor})")
    ax.set_ylabel("fraction of blocks")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left")
    if title:
        ax.set_title(title, fontsize=9, loc="left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
