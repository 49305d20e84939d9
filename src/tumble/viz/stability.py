"""Figures of stability: spectral-radius maps over time step and inertia ratio."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import SymLogNorm

from tumble.stability.manifold import AXIS_NAMES

#: |rho - 1| below this is drawn white: the tolerance of tumble.stability.verdict
NEUTRAL_BAND = 1e-9


def plot_stability_maps(maps, path, body=None, title: str = "") -> None:
    """One panel per scheme (rows) and axis (columns): ``rho - 1`` on a diverging colour map,
    with ``rho`` the transverse spectral radius (the eigenvalue 1 of the rate direction left out).

    White is ``rho = 1`` (to within 1e-9), red growth (unstable), blue damping; the scale is
    logarithmic on both sides of 1 so that excursions of 1e-8 and of 1 are both visible. Grey
    marks steps that failed (e.g. a Newton iteration at a large ``dt``). ``body = (dt, ratio)``
    marks a point (the body and time step of the table).
    """
    maps = list(maps)
    if not maps:
        raise ValueError("no stability maps to draw")
    schemes = list(dict.fromkeys(m.scheme for m in maps))
    axes_present = [a for a in AXIS_NAMES[::-1] if any(m.axis == a for m in maps)]
    by_key = {(m.scheme, m.axis): m for m in maps}
    n_rows, n_cols = len(schemes), len(axes_present)
    fig, axes = plt.subplots(
        n_rows,
        n_cols,
        figsize=(3.4 * n_cols + 1.4, 2.4 * n_rows + 0.8),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    norm = SymLogNorm(linthresh=NEUTRAL_BAND, linscale=0.5, vmin=-1.0, vmax=1.0, base=10)
    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="0.75")
    mesh = None
    for r, scheme in enumerate(schemes):
        for c, axis in enumerate(axes_present):
            ax = axes[r, c]
            m = by_key.get((scheme, axis))
            if m is None:
                ax.set_axis_off()
                continue
            excess = np.ma.masked_invalid(m.transverse - 1.0)
            mesh = ax.pcolormesh(m.dt, m.ratio, excess, cmap=cmap, norm=norm, shading="nearest")
            ax.set_xscale("log")
            if body is not None:
                ax.plot([body[0]], [body[1]], marker="o", mfc="none", mec="k", ms=6)
            if r == 0:
                ax.set_title(f"{axis} axis", fontsize=10)
            if c == 0:
                ax.set_ylabel(f"{scheme}\nI_max / I_min", fontsize=9)
            if r == n_rows - 1:
                ax.set_xlabel("dt (s)")
    fig.tight_layout(rect=(0, 0, 0.9, 0.96 if title else 1.0))
    if mesh is not None:
        cax = fig.add_axes((0.92, 0.15, 0.02, 0.7))
        bar = fig.colorbar(mesh, cax=cax)
        ticks = [-1, -1e-2, -1e-5, -1e-8, 0, 1e-8, 1e-5, 1e-2, 1]
        bar.set_ticks(ticks)
        bar.set_ticklabels(["-1", "-1e-2", "-1e-5", "-1e-8", "0", "1e-8", "1e-5", "1e-2", "1"])
        bar.set_label("transverse spectral radius - 1")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.savefig(path, dpi=120)
    plt.close(fig)
