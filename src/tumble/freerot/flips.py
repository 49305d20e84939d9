"""Flips of the Dzhanibekov effect, defined once: for the exact motion, for simulations, for the
Poinsot page, ``tumble reproduce leine2021`` and :func:`flip_period`.

**Definition.** A flip is a reversal of the intermediate principal axis with respect to the
angular momentum: the body-frame component ``m_2 = I_2 w_2`` of ``L`` along the intermediate axis
changes sign between two moments at which the intermediate axis is the principal axis nearest to
``L`` (``|m_2| >= |m_1|`` and ``|m_2| >= |m_3|``). A spin that wobbles about the major or the minor
axis changes the sign of ``m_2`` every half period without the intermediate axis ever coming
near ``L``: it does not flip. A scheme that drifts onto another axis (the explicit scheme near
the intermediate axis, Leine et al. 2021, Fig. 4) stops flipping once it gets there, whereas
counting the sign changes of ``w_2`` would go on counting its wobble.

**Exact motion.** With the moments sorted ``I1 < I2 < I3`` and the invariants of
:mod:`tumble.freerot.exact`, ``D1 = G^2 - 2T I1``, ``D2 = G^2 - 2T I2``, ``D3 = 2T I3 - G^2``: above
the separatrix (``D2 > 0``, ``L`` circles the major axis) ``|m_2|`` is largest and ``|m_3|``
smallest when ``sn = +-1``, where ``m_1 = 0``, ``m_2^2 = I2 D3 / (I3 - I2)`` and
``m_3^2 = I3 D2 / (I3 - I2)`` (Landau & Lifshitz, Mechanics, section 37, the amplitudes of
``exact``); below it the same holds with axes 1 and 3 exchanged, ``m_2^2 = I2 D1 / (I2 - I1)``
and ``m_1^2 = -I1 D2 / (I2 - I1)``. So the motion flips if and only if::

    I2 D3 > I3 D2  (D2 > 0),   I2 D1 > -I1 D2  (D2 < 0),   i.e.
    2 I1 I2 / (I1 + I2)  <  G^2 / (2T)  <  2 I2 I3 / (I2 + I3)

(the harmonic means of neighbouring moments), once every half period ``2 K(k) / lam`` of the
elliptic functions, at the zeros of ``m_2``. The decision is made in exact rational arithmetic
on the given floats, as in ``exact``. Steady rotation, rest and bodies with two equal moments
(no distinct intermediate axis) do not flip; on the separatrix the motion flips at most once.

:func:`flip_prediction` says whether and how often the exact motion flips and why;
:func:`flip_period` is its period (``inf``: no flips); :func:`flip_times`, :func:`flip_counts` and
:func:`count_flips` measure flips in sampled motion (a scheme's trajectory, or the exact
solution at the same instants).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies.inertia import axis_order
from tumble.freerot.exact import elliptic_parameters
from tumble.freerot.trajectory import Trajectory, validate_initial

__all__ = [
    "FlipPrediction",
    "count_flips",
    "flip_counts",
    "flip_intervals",
    "flip_period",
    "flip_prediction",
    "flip_times",
]


@dataclass(frozen=True)
class FlipPrediction:
    """Whether the exact motion from ``omega0`` flips (module docstring), how often, and why.

    ``flips`` is True when it flips; ``period`` is the time between flips (s), ``inf`` without
    flips and on the separatrix; ``reason`` one sentence for a reader; ``effective_inertia``
    is ``G^2 / 2T`` and ``bounds`` the two harmonic means between which it must lie.
    """

    flips: bool
    period: float
    reason: str
    effective_inertia: float
    bounds: tuple[float, float]


def flip_prediction(inertia: ArrayLike, omega0: ArrayLike) -> FlipPrediction:
    """Whether, how often and why the exact motion of ``inertia`` from ``omega0`` flips."""
    inertia, omega0, _ = validate_initial(inertia, omega0, (1.0, 0.0, 0.0, 0.0))
    axes = axis_order(inertia)
    lo, mid, hi = (inertia[axes[k]] for k in ("minor", "intermediate", "major"))
    bounds = (2.0 * lo * mid / (lo + mid), 2.0 * mid * hi / (mid + hi))
    params = elliptic_parameters(inertia, omega0)
    two_t = 2.0 * params.energy
    effective = params.spin**2 / two_t if two_t > 0.0 else math.nan

    def answer(flips: bool, reason: str) -> FlipPrediction:
        period = params.half_period if flips else math.inf
        return FlipPrediction(flips, period, reason, effective, bounds)

    if params.regime in ("rest", "spherical"):
        return answer(False, f"no flips: {params.regime}")
    if lo == mid or mid == hi:
        return answer(False, "no flips: two equal moments, no distinct intermediate axis")
    if params.regime == "steady":
        return answer(False, "no flips: steady rotation about a principal axis")
    f = [Fraction(float(x)) for x in inertia]
    w = [Fraction(float(x)) for x in omega0]
    i1, i2, i3 = (f[axes[k]] for k in ("minor", "intermediate", "major"))
    g2 = sum((fi * wi) ** 2 for fi, wi in zip(f, w, strict=True))
    t2 = sum(fi * wi * wi for fi, wi in zip(f, w, strict=True))
    d1, d2, d3 = g2 - t2 * i1, g2 - t2 * i2, t2 * i3 - g2
    if d2 == 0:
        return answer(True, "on the separatrix: at most one flip, never repeated")
    if d2 > 0:
        flips, axis = i2 * d3 > i3 * d2, "major"
    else:
        flips, axis = i2 * d1 > -i1 * d2, "minor"
    if flips:
        return answer(
            True,
            f"flips every half cycle: L circles the {axis} axis but passes nearer the "
            "intermediate one",
        )
    return answer(
        False,
        f"no flips: a stable spin about the {axis} axis (L never comes nearer the "
        "intermediate axis than to it)",
    )


def flip_period(inertia: ArrayLike, omega0: ArrayLike) -> float:
    """Time between flips of the exact motion (half a period of ``w(t)``, ``2 K(k) / lam``);
    ``inf`` when it does not flip (a stable spin, steady rotation, two equal moments) and on
    the separatrix. :func:`flip_prediction` says why."""
    return flip_prediction(inertia, omega0).period


def _motion(traj: Trajectory) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = np.asarray(traj.t, dtype=np.float64)
    omega = np.asarray(traj.omega, dtype=np.float64)
    if t.ndim != 1 or omega.shape != (t.shape[0], 3):
        raise ValueError(f"trajectory needs t (n,) and omega (n, 3), got {t.shape}, {omega.shape}")
    inertia = np.asarray(traj.inertia, dtype=np.float64)
    return t, inertia * omega, inertia


def _flip_samples(spin_body: np.ndarray, inertia: np.ndarray) -> list[tuple[int, int]]:
    """``(a, b)`` sample pairs of each flip: the last sample of an episode with the
    intermediate axis nearest to ``L`` and the first of the next, of the opposite sign."""
    axes = axis_order(inertia)
    lo, mid, hi = (float(inertia[axes[k]]) for k in ("minor", "intermediate", "major"))
    if lo == mid or mid == hi:
        return []
    m = np.abs(spin_body)
    m2 = spin_body[:, axes["intermediate"]]
    near = (m[:, axes["intermediate"]] >= np.maximum(m[:, axes["minor"]], m[:, axes["major"]])) & (
        m2 != 0.0
    )
    idx = np.flatnonzero(near)
    if idx.size < 2:
        return []
    signs = np.sign(m2[idx])
    change = np.flatnonzero(signs[1:] != signs[:-1])
    return [(int(idx[c]), int(idx[c + 1])) for c in change]


def flip_times(traj: Trajectory) -> np.ndarray:
    """Instants (s) of the flips of a sampled motion (module docstring): each is the last sign
    change of ``m_2`` between the two episodes, interpolated linearly (error ``O(dt^2)``)."""
    t, spin_body, inertia = _motion(traj)
    m2 = spin_body[:, axis_order(inertia)["intermediate"]]
    times = []
    for a, b in _flip_samples(spin_body, inertia):
        segment = m2[a : b + 1]
        crossings = np.flatnonzero(np.sign(segment[1:]) != np.sign(segment[:-1]))
        j = a + int(crossings[-1])
        w0, w1 = m2[j], m2[j + 1]
        times.append(t[j] + (t[j + 1] - t[j]) * w0 / (w0 - w1) if w0 != w1 else t[j])
    return np.asarray(times, dtype=np.float64)


def flip_counts(traj: Trajectory) -> np.ndarray:
    """Number of flips completed by each sample, shape (n,): a flip counts from the first
    sample at which the intermediate axis is again the nearest to ``L``, the other way round."""
    _, spin_body, inertia = _motion(traj)
    counts = np.zeros(spin_body.shape[0], dtype=np.int64)
    for _, b in _flip_samples(spin_body, inertia):
        counts[b:] += 1
    return counts


def count_flips(traj: Trajectory) -> int:
    """Number of flips of a sampled motion (:func:`flip_times`)."""
    _, spin_body, inertia = _motion(traj)
    return len(_flip_samples(spin_body, inertia))


def flip_intervals(traj: Trajectory) -> np.ndarray:
    """Time between successive flips (:func:`flip_times`)."""
    return np.diff(flip_times(traj))
