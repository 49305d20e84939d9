"""Figures of free rotation: angular velocity components, invariant drift, convergence."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

from tumble.freerot.invariants import relative_drift

COMPONENT_COLORS = ("tab:blue", "tab:orange", "tab:green")


def plot_omega(trajectories, path, title: str = "") -> None:
    """One panel per scheme with omega_x, omega_y, omega_z over time (as seed 000, Fig. 2/4)."""
    n = len(trajectories)
    fig, axes = plt.subplots(n, 1, figsize=(8, 2.2 * n + 0.6), sharex=True, squeeze=False)
    for ax, traj in zip(axes[:, 0], trajectories, strict=True):
        for k, label in enumerate(("x", "y", "z")):
            ax.plot(
                traj.t,
                traj.omega[:, k],
                color=COMPONENT_COLORS[k],
                lw=1.2,
                label=rf"$\omega_{label}$",
            )
        ax.set_ylabel("rad/s")
        ax.set_title(traj.scheme, loc="left", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="upper right", ncol=3, fontsize=8)
    axes[-1, 0].set_xlabel("t (s)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_drift(trajectories, path, title: str = "") -> None:
    """Relative drift of energy and of the spin vector over time, log scale, all schemes."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharex=True)
    floor = 1e-17
    for traj in trajectories:
        axes[0].semilogy(
            traj.t, np.maximum(relative_drift(traj.energy()), floor), label=traj.scheme
        )
        axes[1].semilogy(traj.t, np.maximum(relative_drift(traj.spin()), floor), label=traj.scheme)
    axes[0].set_title("energy |E - E0| / E0", fontsize=10)
    axes[1].set_title("spin |L - L0| / |L0| (inertial frame)", fontsize=10)
    for ax in axes:
        ax.set_xlabel("t (s)")
        ax.grid(alpha=0.3, which="both")
    axes[1].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_convergence(table, path, title: str = "") -> None:
    """Attitude error against dt for each scheme, with fitted slopes in the legend.

    ``table`` maps a scheme name to ``(dts, errors, fitted_order)``.
    """
    fig, ax = plt.subplots(figsize=(6.5, 5))
    for name, (dts, errors, order) in table.items():
        ax.loglog(dts, errors, "o-", label=f"{name} (slope {order:.2f})")
    ax.set_xlabel("dt (s)")
    ax.set_ylabel(r"$\|R_{ref} R^T - I\|_F$ at T")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
