"""Figures of the Authume validation: stop-point maps, run-out distributions, calibration grid."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from numpy.typing import ArrayLike

from tumble.validation import authume
from tumble.validation.authume import ENVELOPE_BANDWIDTH, ENVELOPE_CONTENT, stop_envelope

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from tumble.rockfall.terrain import Terrain
    from tumble.validation.authume import MeasuredEndpoints, ProfileRun

#: Zone id -> colour of the map overlay (0: outside the survey).
ZONE_COLORS = ("white", "tab:blue", "0.55", "tab:red")
SCHEME_COLORS = {"implicit": "tab:orange", "explicit": "tab:green"}
MEASURED_COLOR = "k"
#: Legend label of the published discrete element trajectories.
REFERENCE_LABEL = "Rockable DEM (published)"
#: Legend label of the pooled prediction over the calibration's equivalent sets.
POOLED_LABEL = "pooled sets"


def _extent(terrain: Terrain) -> tuple[float, float, float, float]:
    b = terrain.bounds
    return (
        b.x_min - 0.5 * terrain.dx,
        b.x_max + 0.5 * terrain.dx,
        b.y_min - 0.5 * terrain.dy,
        b.y_max + 0.5 * terrain.dy,
    )


def plot_stop_map(
    terrain: Terrain,
    runs: Mapping[str, Mapping[str, ProfileRun]],
    measured: Mapping[str, MeasuredEndpoints],
    path: str | os.PathLike[str],
    content: float = ENVELOPE_CONTENT,
    bandwidth: float = ENVELOPE_BANDWIDTH,
    title: str = "",
) -> None:
    """Measured and simulated stop points over the hillshade with the zones, one panel per
    profile (rows) and scheme (columns), with the simulated stop envelope (its contour) and the
    drop points.

    ``runs``: profile -> scheme -> :class:`~tumble.validation.authume.runs.ProfileRun`;
    ``measured``: profile -> :class:`~tumble.validation.authume.data.MeasuredEndpoints`.
    """
    profiles = list(runs)
    schemes = list(dict.fromkeys(s for p in profiles for s in runs[p]))
    if not profiles or not schemes:
        raise ValueError("no runs to draw")
    shade = terrain.hillshade()
    zone = np.asarray(terrain.soil["zone"])
    extent = _extent(terrain)
    fig, axes = plt.subplots(
        len(profiles),
        len(schemes),
        figsize=(5.6 * len(schemes) + 0.4, 4.4 * len(profiles) + 0.8),
        squeeze=False,
    )
    zone_cmap = ListedColormap(ZONE_COLORS)
    for r, profile in enumerate(profiles):
        observed = np.asarray(measured[profile].position)[:, :2]
        drops = authume.drop_points(profile)
        for c, scheme in enumerate(schemes):
            ax = axes[r, c]
            ax.imshow(shade, origin="lower", extent=extent, cmap="gray", vmin=0, vmax=1)
            ax.imshow(
                zone, origin="lower", extent=extent, cmap=zone_cmap, vmin=-0.5, vmax=3.5, alpha=0.3
            )
            run = runs[profile].get(scheme)
            if run is None:
                ax.set_axis_off()
                continue
            stops = run.stop[run.regular, :2]
            lo = np.minimum(stops.min(axis=0), observed.min(axis=0)) - 8.0
            hi = np.maximum(stops.max(axis=0), observed.max(axis=0)) + 8.0
            lo = np.maximum(np.minimum(lo, drops[:, :2].min(axis=0) - 4.0), extent[::2])
            hi = np.minimum(hi, extent[1::2])
            envelope = stop_envelope(stops, content, bandwidth)
            gx = np.linspace(lo[0], hi[0], 240)
            gy = np.linspace(lo[1], hi[1], 240)
            density = envelope.density(np.stack(np.meshgrid(gx, gy), axis=-1))
            ax.contour(gx, gy, density, levels=[envelope.level], colors="gold", linewidths=1.4)
            ax.plot(*stops.T, ".", color=SCHEME_COLORS.get(scheme, "tab:purple"), ms=3, alpha=0.7)
            ax.plot(*observed.T, "o", mfc="none", mec=MEASURED_COLOR, ms=5, mew=1.2)
            ax.plot(*drops[:, :2].T, "^", color="magenta", ms=6)
            ax.set_xlim(lo[0], hi[0])
            ax.set_ylim(lo[1], hi[1])
            ax.set_aspect("equal")
            ax.set_title(f"{profile.upper()}, {scheme}", fontsize=10, loc="left")
            ax.set_xlabel("x (m)")
            ax.set_ylabel("y (m)")
    handles = [
        plt.Line2D([], [], ls="none", marker="o", mfc="none", mec=MEASURED_COLOR, label="measured"),
        *(
            plt.Line2D(
                [],
                [],
                ls="none",
                marker=".",
                color=SCHEME_COLORS.get(s, "tab:purple"),
                label=f"simulated, {s}",
            )
            for s in schemes
        ),
        plt.Line2D([], [], color="gold", label=f"{content:.0%} stop envelope"),
        plt.Line2D([], [], ls="none", marker="^", color="magenta", label="drop points"),
        *(
            Patch(color=ZONE_COLORS[i], alpha=0.5, label=name.split(":")[0])
            for i, name in authume.ZONE_NAMES.items()
            if i != authume.ZONE_OUTSIDE
        ),
        Patch(fc="white", ec="0.5", label="outside the survey"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=5, fontsize=8, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 0.97 if title else 1.0))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _ecdf(ax: Axes, values: ArrayLike, **style: Any) -> None:
    x = np.sort(values)
    y = np.arange(1, x.size + 1) / x.size
    ax.step(np.r_[x[0], x], np.r_[0.0, y], where="post", **style)


def plot_runout(
    runs: Mapping[str, Mapping[str, ProfileRun]],
    measured: Mapping[str, MeasuredEndpoints],
    path: str | os.PathLike[str],
    title: str = "",
    reference: Mapping[str, np.ndarray] | None = None,
    pooled: Mapping[str, Mapping[str, np.ndarray]] | None = None,
) -> None:
    """Run-out (distance along the profile from the drop line) and lateral offset, measured
    against simulated: per profile (rows) the ECDFs of the run-out, its histograms, and the
    ECDFs of the lateral offset; one curve per scheme. The run-out legend gives the two-sample
    Kolmogorov-Smirnov statistic and p-value of each scheme against the measured run-out.
    ``reference``: profile -> (n, 2) run-out and lateral offset of the discrete element
    trajectories published with the data (:mod:`tumble.validation.authume.reference`), drawn
    dashed; ``pooled``: profile -> scheme -> (n, 2) the same of the pooled prediction over the
    calibration's equivalent sets, drawn dotted in the scheme's colour."""
    profiles = list(runs)
    if not profiles:
        raise ValueError("no runs to draw")
    fig, axes = plt.subplots(
        len(profiles), 3, figsize=(14, 3.6 * len(profiles) + 0.6), squeeze=False
    )
    for r, profile in enumerate(profiles):
        observed = authume.profile_coordinates(profile, measured[profile].position)
        simulated = {
            s: run.coordinates[run.regular] for s, run in runs[profile].items() if run.regular.any()
        }
        curves = dict(simulated)
        styles = {s: {"color": SCHEME_COLORS.get(s, "tab:purple"), "lw": 1.5} for s in curves}
        for scheme, coords in (pooled or {}).get(profile, {}).items():
            name = f"{scheme}, {POOLED_LABEL}"
            curves[name] = coords
            styles[name] = {"color": SCHEME_COLORS.get(scheme, "tab:purple"), "ls": ":", "lw": 1.5}
        if reference is not None and profile in reference:
            curves[REFERENCE_LABEL] = reference[profile]
            styles[REFERENCE_LABEL] = {"color": "0.25", "ls": "--", "lw": 1.2}
        top = max([observed[:, 0].max(), *(v[:, 0].max() for v in curves.values())])
        bins = np.arange(0.0, top + 2.5, 2.0)
        ax_cdf, ax_hist, ax_lat = axes[r]
        label = f"measured (n = {observed.shape[0]})"
        _ecdf(ax_cdf, observed[:, 0], color=MEASURED_COLOR, lw=2, label=label)
        _ecdf(ax_lat, observed[:, 1], color=MEASURED_COLOR, lw=2, label=label)
        ax_hist.hist(
            observed[:, 0], bins=bins, density=True, color="0.6", alpha=0.6, label="measured"
        )
        for scheme, coords in curves.items():
            style = styles[scheme]
            ks_d, ks_p = authume.kolmogorov_smirnov(observed[:, 0], coords[:, 0])
            label = f"{scheme} (n = {coords.shape[0]}), KS D = {ks_d:.3f}, p = {ks_p:.3g}"
            _ecdf(ax_cdf, coords[:, 0], label=label, **style)
            _ecdf(ax_lat, coords[:, 1], label=label, **style)
            ax_hist.hist(
                coords[:, 0], bins=bins, density=True, histtype="step", label=scheme, **style
            )
        ax_cdf.set_xlabel("run-out along the profile (m)")
        ax_cdf.set_ylabel("fraction of blocks")
        ax_cdf.set_title(f"{profile.upper()}: run-out ECDF", fontsize=10, loc="left")
        ax_hist.set_xlabel("run-out along the profile (m)")
        ax_hist.set_ylabel("density (1/m)")
        ax_hist.set_title(
            f"{profile.upper()}: run-out histogram (2 m bins)", fontsize=10, loc="left"
        )
        ax_lat.set_xlabel("lateral offset, left of the profile (m)")
        ax_lat.set_ylabel("fraction of blocks")
        ax_lat.set_title(f"{profile.upper()}: lateral ECDF", fontsize=10, loc="left")
        # the ECDFs rise from the left: their lower right corner is free
        for ax, place in zip(axes[r], ("lower right", "upper right", "lower right"), strict=True):
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc=place)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_calibration(
    rows: Iterable[Mapping[str, Any]],
    path: str | os.PathLike[str],
    title: str = "",
    chosen: Mapping[str, Any] | None = None,
) -> None:
    """Objective of the calibration grid on P1: a heat map over vegetation drag and friction
    factor, each cell the best over the other grid axes (their values at that best point written
    under the objective: drop offset, vegetated-slope friction factor, rolling resistance and
    the scar layer's soil strength, where the grid varies them), the chosen point circled;
    ``rows`` as :attr:`tumble.validation.authume.calibration.Calibration.rows`; ``chosen`` (its
    ``vegetation_drag`` and ``hard_friction``) is the point circled, by default the smallest
    objective."""
    rows = list(rows)
    if not rows:
        raise ValueError("no calibration rows to draw")
    drag = sorted({row["vegetation_drag"] for row in rows})
    friction = sorted({row["hard_friction"] for row in rows})
    labels = {
        "drop_offset": "{:g} m",
        "vegetated_friction": "Blue x{:g}",
        "rolling_resistance": "mu_r {:g}",
        "scar_strength": "Me {:g}",
    }
    others = [k for k in labels if len({row.get(k) for row in rows}) > 1]
    grid = np.full((len(friction), len(drag)), np.nan)
    notes = np.full(grid.shape, "", dtype=object)
    for row in rows:
        cell = friction.index(row["hard_friction"]), drag.index(row["vegetation_drag"])
        if not row["objective_m"] >= grid[cell]:  # NaN (empty) or a better point
            grid[cell] = row["objective_m"]
            notes[cell] = "\n".join(
                labels[k].format(row[k]) if row.get(k) is not None else f"{k} -" for k in others
            )
    best = chosen if chosen is not None else min(rows, key=lambda row: row["objective_m"])
    fig, ax = plt.subplots(
        figsize=(1.6 * len(drag) + 2.5, (1.1 + 0.3 * len(others)) * len(friction) + 1.8)
    )
    mesh = ax.imshow(grid, origin="lower", cmap="viridis_r", aspect="auto")
    low, high = float(np.nanmin(grid)), float(np.nanmax(grid))
    for j in range(len(friction)):
        for i in range(len(drag)):
            if np.isfinite(grid[j, i]):
                text = f"{grid[j, i]:.2f}"
                if notes[j, i]:
                    text += "\n" + notes[j, i]
                # viridis_r is bright (yellow) at small objectives: dark text there
                level = (grid[j, i] - low) / (high - low) if high > low else 0.0
                shade = "k" if level < 0.45 else "w"
                ax.text(i, j, text, ha="center", va="center", fontsize=8, color=shade)
    ax.plot(
        drag.index(best["vegetation_drag"]),
        friction.index(best["hard_friction"]),
        "o",
        mfc="none",
        mec="red",
        ms=40,
        mew=2,
    )
    ax.set_xticks(range(len(drag)), [f"{v:g}" for v in drag])
    ax.set_yticks(range(len(friction)), [f"{v:g}" for v in friction])
    ax.set_xlabel("vegetation drag on Blue, block of 1 m^3 (kg/s)")
    ax.set_ylabel("friction factor, Gray")
    fig.colorbar(mesh, ax=ax, label="run-out + lateral Wasserstein on P1 (m), mean over seeds")
    ax.set_title(title or "calibration on P1", fontsize=10, loc="left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_rocky_calibration(
    rows: Iterable[Mapping[str, Any]], path: str | os.PathLike[str], title: str = ""
) -> None:
    """The second stage of the calibration on P2: the objective (mean over the seeds, with
    error bars of one standard error) and the geometric mean of the KS p-values of P2's
    run-out against the rocky zone's ``mu_r``; the best filled red, the other equivalent values
    circled, the KS level dashed. ``rows`` as :attr:`tumble.validation.authume.Calibration.rows`
    of :func:`tumble.validation.authume.calibrate_rocky` (flagged by ``select_calibration``)."""
    rows = sorted(rows, key=lambda row: row["rocky_rolling_resistance"])
    if not rows:
        raise ValueError("no calibration rows to draw")
    mu_r = np.array([row["rocky_rolling_resistance"] for row in rows], dtype=float)
    objective = np.array([row["objective_m"] for row in rows], dtype=float)
    error = np.array([row["objective_se_m"] for row in rows], dtype=float)
    pvalue = np.array([row["ks_pvalue_geomean"] for row in rows], dtype=float)
    equivalent = np.array([bool(row.get("equivalent", False)) for row in rows])
    best = int(np.argmin(np.where(equivalent, objective, np.inf))) if equivalent.any() else None
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.0, 5.5), sharex=True)
    top.errorbar(mu_r, objective, yerr=np.nan_to_num(error), fmt="o-", color="0.3", capsize=3)
    bottom.semilogy(mu_r, np.maximum(pvalue, 1e-6), "o-", color="0.3")
    bottom.axhline(authume.KS_LEVEL, color="k", ls="--", lw=1, label=f"KS level {authume.KS_LEVEL}")
    for ax, values in ((top, objective), (bottom, np.maximum(pvalue, 1e-6))):
        others = equivalent.copy()
        if best is not None:
            others[best] = False
            ax.plot(mu_r[best], values[best], "o", color="red", ms=9, label="best")
        if others.any():
            ax.plot(
                mu_r[others],
                values[others],
                "o",
                mfc="none",
                mec="red",
                ms=12,
                mew=2,
                label="equivalent",
            )
    top.set_ylabel("run-out + lateral W on P2 (m)")
    bottom.set_ylabel("KS p of the run-out\n(geometric mean)")
    bottom.set_xlabel("rolling resistance mu_r of the rocky zone (Red)")
    top.legend(fontsize=8)
    bottom.legend(fontsize=8)
    top.set_title(title or "calibration on P2: the rocky zone", fontsize=10, loc="left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
