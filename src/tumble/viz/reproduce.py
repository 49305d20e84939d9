"""Figures of the reproduced seed examples, drawn from the tables of a
:class:`tumble.validation.reproduction.Reproduction` (no physics here)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

from tumble.viz.freerot import COMPONENT_COLORS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from tumble.validation.reproduction import FigureRecord, Reproduction

SCHEME_COLORS = {
    "explicit": "tab:red",
    "implicit": "tab:blue",
    "quat_em": "tab:green",
    "quat_vi": "tab:purple",
    "dir_em": "tab:orange",
    "algo_c1": "tab:brown",
}
AXIS_MARKERS = {"major": "o", "intermediate": "s", "minor": "^"}
TITLES = {
    "fig2_major_axis": "angular velocity near the major axis (Leine et al. 2021, Fig. 2)",
    "fig3_difference_vector": "difference vector d(t), eq. 20 (Leine et al. 2021, Fig. 3)",
    "fig4_intermediate_axis": "angular velocity near the intermediate axis (Leine et al. 2021, "
    "Fig. 4)",
}


def _schemes(columns: Mapping[str, np.ndarray], suffix: str) -> list[str]:
    """Scheme prefixes of the columns named ``<scheme><suffix>``, in column order."""
    return [name[: -len(suffix)] for name in columns if name.endswith(suffix)]


def _save(fig: Figure, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _flat(ax: Axes, values: ArrayLike) -> None:
    """Y limits of +-5 % about a conserved value, so that conservation reads as a flat line."""
    values = np.asarray(values)
    if values.size == 0:
        return
    mid = 0.5 * (values.max() + values.min())
    half = max(0.05 * abs(mid), 0.5 * (values.max() - values.min()) * 1.1, 1e-12)
    ax.set_ylim(mid - half, mid + half)


def _drift(values: ArrayLike) -> float:
    values = np.asarray(values)
    return float(np.abs(values - values[0]).max() / abs(values[0])) if values.size else np.nan


def _component_panels(
    columns: Mapping[str, np.ndarray],
    path: Path,
    record: FigureRecord,
    symbol: str,
    suffix_of: Callable[[str], str],
    ylabel: str,
) -> None:
    """One panel per scheme with three components over time (Leine Fig. 2, 3, 4), each with
    the y label ``ylabel`` (quantity and unit)."""
    schemes = _schemes(columns, suffix_of("x"))
    fig, axes = plt.subplots(
        len(schemes), 1, figsize=(8, 2.4 * len(schemes) + 0.8), sharex=True, squeeze=False
    )
    for ax, name in zip(axes[:, 0], schemes, strict=True):
        for k, c in enumerate("xyz"):
            ax.plot(
                columns["t"],
                columns[name + suffix_of(c)],
                color=COMPONENT_COLORS[k],
                lw=1.1,
                label=rf"${symbol}_{c}$",
            )
        ax.set_title(name, loc="left", fontsize=10)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="upper right", ncol=3, fontsize=8)
    axes[-1, 0].set_xlabel("t (s)")
    fig.suptitle(TITLES.get(record.name, record.name), fontsize=11)
    _save(fig, path)


def _omega(
    tables: Mapping[str, Mapping[str, np.ndarray]], path: Path, record: FigureRecord
) -> None:
    _component_panels(
        tables[record.tables[0]],
        path,
        record,
        r"\omega",
        lambda c: f"_omega_{c}",
        r"$\omega_i$ (rad/s)",
    )


def _difference_vector(
    tables: Mapping[str, Mapping[str, np.ndarray]], path: Path, record: FigureRecord
) -> None:
    _component_panels(
        tables[record.tables[0]],
        path,
        record,
        "d",
        lambda c: f"_d_{c}",
        r"$d_i$ (unitless)",
    )


def _lyapunov(
    tables: Mapping[str, Mapping[str, np.ndarray]], path: Path, record: FigureRecord
) -> None:
    columns = tables[record.tables[0]]
    fig, ax = plt.subplots(figsize=(8, 4))
    for name in _schemes(columns, "_V"):
        ax.semilogy(columns["t"], columns[f"{name}_V"], color=SCHEME_COLORS.get(name), label=name)
    ax.set_xlabel("t (s)")
    ax.set_ylabel(r"$V = \bar V + \hat V$")
    ax.set_title("Lyapunov function about the major axis (Leine et al. 2021, eq. 35-36)")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    _save(fig, path)


def _spectra(
    tables: Mapping[str, Mapping[str, np.ndarray]], path: Path, record: FigureRecord
) -> None:
    spectra, radius = (tables[name] for name in record.tables)
    fig, axes = plt.subplots(1, 4, figsize=(16, 4.6), gridspec_kw={"width_ratios": [1, 1, 1, 1.5]})
    arc = np.linspace(-0.2, 0.2, 200)
    for ax, axis in zip(axes[:3], AXIS_MARKERS, strict=True):
        ax.plot(np.cos(arc), np.sin(arc), color="0.5", lw=0.8, label="unit circle")
        for scheme in ("explicit", "implicit"):
            for method, filled in (
                ("one-step Jacobian", True),
                ("closed form eq. 58-60", False),
            ):
                rows = (
                    (spectra["scheme"] == scheme)
                    & (spectra["axis"] == axis)
                    & (spectra["method"] == method)
                )
                if not np.any(rows):
                    continue
                color = SCHEME_COLORS[scheme]
                ax.plot(
                    spectra["re"][rows],
                    spectra["im"][rows],
                    AXIS_MARKERS[axis] if filled else "x",
                    ms=7 if filled else 10,
                    color=color,
                    mfc=color if filled else "none",
                    ls="none",
                    label=scheme + ("" if filled else " (closed form)"),
                )
        re, im = spectra["re"][spectra["axis"] == axis], spectra["im"][spectra["axis"] == axis]
        finite = np.isfinite(re) & (spectra["scheme"][spectra["axis"] == axis] != "continuous")
        half = 1.3 * max(np.abs(re[finite] - 1.0).max(), np.abs(im[finite]).max(), 1e-3)
        ax.set_xlim(1.0 - half, 1.0 + half)
        ax.set_ylim(-half, half)
        ax.set_aspect("equal")
        ax.set_title(f"{axis} axis", fontsize=10)
        ax.set_xlabel(r"Re $\lambda$")
        ax.set_ylabel(r"Im $\lambda$")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower left")
    right = axes[3]
    dt = radius["dt"]
    color = SCHEME_COLORS["explicit"]
    right.loglog(
        dt, radius["explicit"] - 1.0, "o", color=color, ms=4, label="explicit, one-step Jacobian"
    )
    right.loglog(
        dt, radius["explicit_closed_form"] - 1.0, "-", color=color, label="explicit, eq. 58-60"
    )
    right.loglog(
        dt,
        np.maximum(np.abs(radius["implicit"] - 1.0), 1e-16),
        "s-",
        color=SCHEME_COLORS["implicit"],
        ms=4,
        label="implicit |rho - 1| (round-off)",
    )
    right.set_xlabel("dt (s)")
    right.set_ylabel(r"spectral radius $\rho$ - 1")
    right.set_title("major axis: spectral radius against dt", fontsize=10)
    right.grid(alpha=0.3, which="both")
    right.legend(fontsize=8)
    fig.suptitle("one-step eigenvalues about steady rotation (Leine et al. 2021)", fontsize=11)
    _save(fig, path)


def _error_panel(ax: Axes, columns: Mapping[str, np.ndarray], ylabel: str) -> None:
    for name in dict.fromkeys(columns["scheme"]):
        rows = (columns["scheme"] == name) & np.isfinite(columns["error"])
        if not np.any(rows):
            continue
        ax.loglog(
            columns["dt"][rows],
            columns["error"][rows],
            "o-",
            ms=4,
            color=SCHEME_COLORS.get(name),
            label=name,
        )
    dt = columns["dt"]
    ref = np.array([dt.min(), dt.max()])
    finite = columns["error"][np.isfinite(columns["error"])]
    if finite.size:
        scale = np.nanmin(finite) / dt.min() ** 2
        ax.loglog(ref, scale * ref**2, "k--", lw=0.8, label="slope 2")
    ax.set_xlabel("dt")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)


def _free_body(
    tables: Mapping[str, Mapping[str, np.ndarray]], path: Path, record: FigureRecord
) -> None:
    conservation, error = (tables[name] for name in record.tables)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    t = conservation["t"]
    axes[0].plot(t, conservation["energy"], color="k")
    _flat(axes[0], conservation["energy"])
    axes[0].set_title(
        f"QUAT.EM energy (max drift {_drift(conservation['energy']):.1e})", fontsize=10
    )
    for k, c in enumerate("xyz"):
        axes[1].plot(
            t,
            conservation[f"spin_{c}"],
            color=COMPONENT_COLORS[k],
            ls=("-", "-", "--")[k],
            label=f"$L_{c}$",
        )
    axes[1].set_title("QUAT.EM spin (inertial frame)", fontsize=10)
    axes[1].legend(fontsize=8)
    for ax in axes[:2]:
        ax.set_xlabel("t")
        ax.grid(alpha=0.3)
    _error_panel(axes[2], error, r"$\|R_{ref} R^T - I\|_F$ at T = 1")
    axes[2].set_title("configuration error", fontsize=10)
    _save(fig, path)


def _heavy_top(
    tables: Mapping[str, Mapping[str, np.ndarray]], path: Path, record: FigureRecord
) -> None:
    conservation, error = (tables[name] for name in record.tables)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    t = conservation["t"]
    for ax, key, label in ((axes[0], "energy", "total energy"), (axes[1], "spin_z", "$L_z$")):
        if key in conservation and conservation[key].size:
            ax.plot(t, conservation[key], color="k")
            _flat(ax, conservation[key])
            ax.set_title(
                f"QUAT.EM {label} (max drift {_drift(conservation[key]):.1e})", fontsize=10
            )
        ax.set_xlabel("t")
        ax.grid(alpha=0.3)
    _error_panel(axes[2], error, r"$|\varphi_{ref} - \varphi| / |\varphi_{ref}|$ at t = 1")
    axes[2].set_title("centre-of-mass error", fontsize=10)
    _save(fig, path)


def _top_xz(
    tables: Mapping[str, Mapping[str, np.ndarray]], path: Path, record: FigureRecord
) -> None:
    columns = tables[record.tables[0]]
    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    t = columns["t"]
    for ax, c in zip(axes, "xz", strict=True):
        ax.plot(t, columns[f"{c}_ref"], "k-", lw=2.0, alpha=0.5, label="analytic")
        for name in _schemes(columns, f"_{c}"):
            ax.plot(t, columns[f"{name}_{c}"], lw=1.0, color=SCHEME_COLORS.get(name), label=name)
        ax.set_ylabel(f"{c}(t) (m)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper right")
    axes[-1].set_xlabel("t (s)")
    fig.suptitle("heavy top: centre of mass against the steady precession", fontsize=11)
    _save(fig, path)


#: figure name -> drawing function(tables, path, record)
FIGURES = {
    "fig2_major_axis": _omega,
    "fig3_difference_vector": _difference_vector,
    "fig4_intermediate_axis": _omega,
    "lyapunov": _lyapunov,
    "spectra": _spectra,
    "fig1_free_body": _free_body,
    "fig3_heavy_top": _heavy_top,
    "fig4_heavy_top_xz": _top_xz,
    "fig5_heavy_top_xz": _top_xz,
}


def plot_reproduction(reproduction: Reproduction, directory: str | os.PathLike[str]) -> list[Path]:
    """Draw every figure of ``reproduction`` as ``<directory>/<name>.png``; returns the paths."""
    paths = []
    for record in reproduction.figures:
        draw = FIGURES.get(record.name)
        if draw is None:
            raise ValueError(f"no drawing for figure {record.name!r}; known: {', '.join(FIGURES)}")
        path = Path(directory) / f"{record.name}.png"
        draw(reproduction.tables, path, record)
        paths.append(path)
    return paths
