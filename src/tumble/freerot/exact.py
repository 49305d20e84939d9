"""Exact solution of torque-free rigid-body rotation with Jacobi elliptic functions.

Angular velocity (Euler's equations, Nakanishi 2024, eq. 1). Sort the principal moments
``I1 <= I2 <= I3`` with a proper rotation of the body axes. With ``m = Theta w`` the body angular
momentum, ``G = |m|`` and ``2T = w . Theta w``, the three invariant combinations::

    D1 = G^2 - 2T I1 = sum_i I_i (I_i - I1) w_i^2    >= 0
    D2 = G^2 - 2T I2 = I1 (I1 - I2) w1^2 + I3 (I3 - I2) w3^2
    D3 = 2T I3 - G^2 = sum_i I_i (I3 - I_i) w_i^2    >= 0

are evaluated in exact rational arithmetic on the given floats, so the regime is decided exactly
and the distance ``D2`` from the separatrix carries no round-off. The amplitudes (Landau &
Lifshitz, Mechanics, section 37)::

    A1 = sqrt(D3 / (I1 (I3 - I1))),   A3 = sqrt(D1 / (I3 (I3 - I1)))

and, with ``tau = lam t + tau0`` and the signs ``s1, s3`` of the components that never vanish:

* ``D2 > 0``, the angular momentum circles the major axis::

      w1 = s1 A1 cn(tau | k^2),  w2 = s1 s3 A2 sn(tau | k^2),  w3 = s3 A3 dn(tau | k^2)
      A2 = sqrt(D3 / (I2 (I3 - I2))),  lam = sqrt((I3 - I2) D1 / (I1 I2 I3)),
      k^2 = (I2 - I1) D3 / ((I3 - I2) D1),  1 - k^2 = (I3 - I1) D2 / ((I3 - I2) D1)

* ``D2 < 0``, the angular momentum circles the minor axis: indices 1 and 3 exchanged,
  ``w1 = s1 A1 dn``, ``w2 = s1 s3 A2 sn``, ``w3 = s3 A3 cn``, ``A2 = sqrt(D1 / (I2 (I2 - I1)))``,
  ``lam = sqrt((I2 - I1) D3 / (I1 I2 I3))``, ``k^2 = (I3 - I2) D1 / ((I2 - I1) D3)``.
* ``D2 = 0``, the separatrix: ``k = 1``, ``cn = dn = sech``, ``sn = tanh``.

The signs ``s1, s3`` are those of the initial components, so the initial amplitude lies in
``[-pi/2, pi/2]`` and ``tau0 = F(phi0 | k^2)`` (Carlson's ``R_F``). The period of ``w(t)`` is
``4 K(k) / lam``; the intermediate-axis component changes sign every ``2 K(k) / lam``, never on the
separatrix (whether those sign changes are flips of the Dzhanibekov effect is decided in
:mod:`tumble.freerot.flips`).

Attitude. Let ``a`` be the axis about which ``m`` circulates (3 above the separatrix and on it,
1 below), ``s_a`` the sign of ``m_a`` and ``u = s_a e_a``. The quaternion kinematics
``q' = 1/2 q (x) (0, w)`` (Nakanishi 2024, Eq. B-C) are solved by::

    q(t) = q_c (x) exp(psi(t) u / 2) (x) conj(p(t)),
    p = (G + |m_a|, u x m) / sqrt(2 G (G + |m_a|))

where ``p`` is the shortest rotation taking ``u`` to ``m / G`` (regular because ``|m_a| > 0``),
so that the spatial angular momentum is ``G q_c u q_c*``, constant, and ``q_c`` makes
``q(0) = q0``. Matching the component of ``w`` along ``m`` gives the precession rate::

    psi' = (2T + G |w_a|) / (G + |m_a|) = G / I_a + (2T I_a - G^2) / (I_a (G + |m_a|))

and with ``|m_a| = c dn(tau)``, ``alpha = G^2 - c^2`` and ``nb = c^2 k^2 / alpha``, a ratio of
moments only (``I3 (I2 - I1) / (I1 (I3 - I2))`` above the separatrix,
``I1 (I3 - I2) / (I3 (I2 - I1))`` below), its quadrature is::

    psi(t) = G t / I_a + sgn (I3 - I1) / (I1 I3 lam) [B(tau) - B(tau0)],
    B(tau) = G Pi(-nb; am tau | k^2) - c Theta(am tau) / sqrt(1 + nb),
    tan Theta = sqrt(1 + nb) tan(am tau),

``sgn = +1`` above and ``-1`` below the separatrix, ``Pi`` the incomplete elliptic integral of the
third kind: on the reduced argument ``tau = 2 j K + tau_r``, ``|tau_r| <= K``,
``Pi = tau - nb/3 (2 j R_J(0, 1-k^2, 1, 1+nb) + sn^3 R_J(cn^2, dn^2, 1, 1 + nb sn^2))``
(Carlson 1995, Numer. Algorithms 10:13-26, eq. 4.3), elementary on the separatrix. Rest, steady
rotation about a principal axis and spherical bodies are ``q0 (x) exp(w0 t / 2)``; symmetric
bodies fall out of the general formulas with ``k = 0``.

Accuracy near the separatrix (``k -> 1``) needs ``cn`` and ``dn`` to full relative precision where
they are small. They are computed on ``[0, K/2]`` from the pole expansions
``dn(u) = pi/(2K') sum_n sech(pi (u - 2nK)/(2K'))`` and
``cn(u) = pi/(2kK') sum_n (-1)^n sech(pi (u - 2nK)/(2K'))`` (``K' = K(1 - k^2)``, a few terms when
``k -> 1``), on ``[K/2, K]`` by the reflection ``cn(K - v) = k' sn(v)/dn(v)``,
``dn(K - v) = k'/dn(v)``, and ``sn`` by the arithmetic-geometric mean (Abramowitz & Stegun 16.4).

Celledoni, Fasso, Safstrom & Zanna (2008), SIAM J. Sci. Comput. 30:2084-2112 give a related
quaternion form; the formulas here are derived independently and checked in every regime against
tight-tolerance integrations of Euler's equations with the quaternion kinematics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import elliprf, elliprj

from tumble import _check
from tumble.freerot.trajectory import Trajectory, validate_initial
from tumble.rotation.quaternion import matrix_to_quat, quat_exp, quat_mul

_EPS = np.finfo(np.float64).eps
_CONJ = np.array([1.0, -1.0, -1.0, -1.0])


@dataclass(frozen=True)
class EllipticParameters:
    """Parameters of the elliptic-function solution for one body and initial angular velocity.

    ``regime`` is ``"major"`` (``G^2 > 2T I2``: the angular momentum circles the major axis),
    ``"minor"`` (``G^2 < 2T I2``), ``"separatrix"`` (``G^2 = 2T I2`` exactly), ``"symmetric"``
    (two equal moments: trigonometric solution, ``k = 0``), ``"steady"`` (rotation about a
    principal axis), ``"spherical"`` (three equal moments) or ``"rest"``. ``m`` is the parameter
    ``k^2`` of the elliptic functions and ``m1 = 1 - k^2`` (computed directly, accurate as
    ``k -> 1``); ``lam`` the rate of their argument ``tau = lam t + tau0`` (rad/s);
    ``quarter_period`` is ``K(k)``; ``period = 4 K / lam`` is the period of ``w(t)`` and
    ``half_period = 2 K / lam`` the time between sign changes of the intermediate-axis component
    (both infinite on the separatrix and without oscillation; they are flips only near the
    intermediate axis, :func:`tumble.freerot.flips.flip_period`). ``axis`` is the index, in the
    caller's axis order, of the principal axis the angular momentum circles (``None`` without
    circulation); ``energy`` is ``T`` and ``spin`` is ``G``.
    """

    regime: str
    m: float
    m1: float
    lam: float
    quarter_period: float
    period: float
    half_period: float
    tau0: float
    axis: int | None
    energy: float
    spin: float


@dataclass(frozen=True)
class _Solution:
    """What the evaluation needs, in the sorted (proper) principal frame."""

    params: EllipticParameters
    sort: np.ndarray  # proper signed permutation S: w_sorted = S w_body
    inertia: np.ndarray  # sorted moments I1 <= I2 <= I3
    omega0: np.ndarray  # sorted initial angular velocity
    a: int = 2  # circulation axis (0 or 2) in the sorted frame
    sign1: float = 1.0
    sign3: float = 1.0
    amplitude: tuple[float, float, float] = (0.0, 0.0, 0.0)  # (A1, A2, A3)
    nb: float = 0.0
    c_amp: float = 0.0  # max |m_a| = I_a A_a
    kprime: float = math.pi / 2  # K' = K(1 - k^2)
    initial: tuple[float, float, float] = (0.0, 1.0, 1.0)  # sn, cn, dn of tau0


def _proper_sort(inertia: np.ndarray) -> np.ndarray:
    """Signed permutation ``S`` with ``det S = +1`` and ``S diag(I) S^T`` sorted ascending."""
    perm = np.argsort(inertia, kind="stable")
    sort = np.zeros((3, 3))
    sort[np.arange(3), perm] = 1.0
    if np.linalg.det(sort) < 0.0:
        sort[2] *= -1.0
    return sort


def _sign(x: float) -> float:
    return -1.0 if x < 0.0 else 1.0


def _agm(m: float, m1: float) -> tuple[list[float], list[float]]:
    """Arithmetic-geometric mean ladder ``(a_n, c_n)`` from ``(1, sqrt(m1), sqrt(m))``."""
    a = [1.0]
    c = [math.sqrt(m)]
    b = math.sqrt(m1)
    for _ in range(60):
        if c[-1] <= _EPS * a[-1]:
            break
        a_next = 0.5 * (a[-1] + b)
        c.append(c[-1] * c[-1] / (4.0 * a_next))  # (a_n - b_n) / 2 without cancellation
        b = math.sqrt(a[-1] * b)
        a.append(a_next)
    return a, c


def quarter_period(m: float, m1: float | None = None) -> float:
    """Complete elliptic integral of the first kind ``K`` for ``m = k^2``, ``m1 = 1 - k^2``.

    Passing ``m1`` computed directly keeps ``K`` accurate as ``k -> 1``; ``m1 = 0`` gives inf.
    """
    m1 = 1.0 - m if m1 is None else m1
    if m1 == 0.0:
        return math.inf
    a, _ = _agm(m, m1)
    return math.pi / (2.0 * a[-1])


def _sn_agm(u: np.ndarray, m: float, m1: float) -> tuple[np.ndarray, np.ndarray]:
    """``sn`` and ``cn`` by the descending Landen recursion (Abramowitz & Stegun 16.4.2-3)."""
    a, c = _agm(m, m1)
    n = len(a) - 1
    phi = (2.0**n * a[n]) * u
    for i in range(n, 0, -1):
        phi = 0.5 * (phi + np.arcsin(c[i] / a[i] * np.sin(phi)))
    return np.sin(phi), np.cos(phi)


def _sech(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return 2.0 * e / (1.0 + e * e)


def _cn_dn_poles(w: np.ndarray, m: float, k: float, kp: float) -> tuple[np.ndarray, np.ndarray]:
    """``cn, dn`` on ``0 <= w <= K/2`` from their pole expansions, to full relative precision."""
    scale = math.pi / (2.0 * kp)
    # terms n != 0 are below exp(-pi (2|n| - 1/2) K / (2 K')) relative to sech(pi K / (4 K'))
    n_max = max(1, math.ceil((26.4 * kp / k - 1.0) / 2.0))
    cn = np.zeros_like(w)
    dn = np.zeros_like(w)
    for n in range(-n_max, n_max + 1):
        term = _sech(scale * (w - 2.0 * n * k))
        dn += term
        cn += -term if n % 2 else term
    return cn * scale / math.sqrt(m), dn * scale


def _jacobi_reduced(
    u: ArrayLike, m: float, m1: float, k: float, kp: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split ``u = 2 j K + r`` with ``|r| <= K`` and return ``j, r, sn(r), cn(r), dn(r)``."""
    u = np.asarray(u, dtype=np.float64)
    if m1 == 0.0:
        return np.zeros_like(u), u, np.tanh(u), _sech(u), _sech(u)
    j = np.rint(u / (2.0 * k))
    r = u - 2.0 * k * j
    if m == 0.0:
        return j, r, np.sin(r), np.cos(r), np.ones_like(r)
    if m < 0.5:
        sn, cn = _sn_agm(r, m, m1)
        return j, r, sn, cn, np.sqrt(cn * cn + m1 * sn * sn)
    w = np.abs(r)
    outer = w > 0.5 * k
    w = np.where(outer, np.maximum(k - w, 0.0), w)
    sn_w, _ = _sn_agm(w, m, m1)
    cn_w, dn_w = _cn_dn_poles(w, m, k, kp)
    root = math.sqrt(m1)
    sn = np.where(r < 0.0, -1.0, 1.0) * np.where(outer, cn_w / dn_w, sn_w)
    cn = np.where(outer, root * sn_w / dn_w, cn_w)
    dn = np.where(outer, root / dn_w, dn_w)
    return j, r, sn, cn, dn


def jacobi_sn_cn_dn(
    u: ArrayLike, m: float, m1: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jacobi ``sn, cn, dn`` of real ``u`` for the parameter ``m = k^2`` in ``[0, 1]``.

    ``m1 = 1 - m`` may be given separately (computed without cancellation) for ``k`` near 1;
    ``cn`` and ``dn`` keep full relative precision where they are small.
    """
    m1 = 1.0 - m if m1 is None else m1
    if not (0.0 <= m <= 1.0 and 0.0 <= m1 <= 1.0):
        raise ValueError(f"the parameter m = k^2 must lie in [0, 1], got m = {m}, m1 = {m1}")
    k = quarter_period(m, m1)
    kp = quarter_period(m1, m)
    j, _, sn, cn, dn = _jacobi_reduced(u, m, m1, k, kp)
    parity = 1.0 - 2.0 * np.mod(j, 2.0)
    return parity * sn, parity * cn, dn


def _invariants(inertia: np.ndarray, w: np.ndarray) -> tuple[Fraction, Fraction, Fraction]:
    """``D1, D2, D3`` as exact rationals of the given floats."""
    i1, i2, i3 = (Fraction(float(x)) for x in inertia)
    sq = [Fraction(float(x)) ** 2 for x in w]
    d1 = i2 * (i2 - i1) * sq[1] + i3 * (i3 - i1) * sq[2]
    d2 = i1 * (i1 - i2) * sq[0] + i3 * (i3 - i2) * sq[2]
    d3 = i1 * (i3 - i1) * sq[0] + i2 * (i3 - i2) * sq[1]
    return d1, d2, d3


def _prepare(inertia: np.ndarray, omega0: np.ndarray) -> _Solution:
    """Regime, amplitudes, signs and phase for validated ``inertia`` and ``omega0``."""
    sort = _proper_sort(inertia)
    i1, i2, i3 = (float(x) for x in np.abs(sort) @ inertia)
    w = sort @ omega0
    w1, w2, w3 = (float(x) for x in w)
    energy = 0.5 * (i1 * w1 * w1 + i2 * w2 * w2 + i3 * w3 * w3)
    spin = math.sqrt((i1 * w1) ** 2 + (i2 * w2) ** 2 + (i3 * w3) ** 2)
    inertia_sorted = np.array([i1, i2, i3])
    perm = np.argmax(np.abs(sort), axis=1)  # sorted axis j is the caller's axis perm[j]

    def params(
        regime: str,
        m: float = 0.0,
        m1: float = 1.0,
        lam: float = 0.0,
        k: float = math.pi / 2,
        tau0: float = 0.0,
        axis: int | None = None,
    ) -> EllipticParameters:
        oscillates = lam > 0.0
        return EllipticParameters(
            regime=regime,
            m=m,
            m1=m1,
            lam=lam,
            quarter_period=k,
            period=4.0 * k / lam if oscillates else math.inf,
            half_period=2.0 * k / lam if oscillates else math.inf,
            tau0=tau0,
            axis=None if axis is None else int(perm[axis]),
            energy=energy,
            spin=spin,
        )

    def still(regime: str) -> _Solution:
        return _Solution(params(regime), sort, inertia_sorted, w)

    # the gyroscopic vector w x Theta w vanishes exactly for rest, steady and spherical motion
    gyro = ((i3 - i2) * w2 * w3, (i1 - i3) * w3 * w1, (i2 - i1) * w1 * w2)
    if spin == 0.0:
        return still("rest")
    if i1 == i3:
        return still("spherical")
    if gyro == (0.0, 0.0, 0.0):
        return still("steady")

    d1_exact, d2_exact, d3_exact = _invariants(inertia_sorted, w)
    f1, f2, f3 = Fraction(i1), Fraction(i2), Fraction(i3)
    d1, d3 = float(d1_exact), float(d3_exact)
    a1 = math.sqrt(d3 / (i1 * (i3 - i1)))
    a3 = math.sqrt(d1 / (i3 * (i3 - i1)))
    if d2_exact >= 0:
        a = 2
        lam = math.sqrt((i3 - i2) * d1 / (i1 * i2 * i3))
        a2 = math.sqrt(d3 / (i2 * (i3 - i2))) if i3 > i2 else 0.0
        if d2_exact == 0:
            regime, m, m1 = "separatrix", 1.0, 0.0
        else:
            regime = "major"
            m = float((f2 - f1) * d3_exact / ((f3 - f2) * d1_exact))
            m1 = float((f3 - f1) * d2_exact / ((f3 - f2) * d1_exact))
    else:
        regime, a = "minor", 0
        lam = math.sqrt((i2 - i1) * d3 / (i1 * i2 * i3))
        a2 = math.sqrt(d1 / (i2 * (i2 - i1)))
        m = float((f3 - f2) * d1_exact / ((f2 - f1) * d3_exact))
        m1 = float((f3 - f1) * -d2_exact / ((f2 - f1) * d3_exact))
    amplitude = (a1, a2, a3)
    b = 2 - a
    if a2 == 0.0 or amplitude[b] == 0.0 or lam == 0.0:
        return still("steady")  # the oscillating components are below the float range
    if m == 0.0 and (i1 == i2 or i2 == i3):
        regime = "symmetric"

    # initial amplitude phi0 in [-pi/2, pi/2]: cn = |w_b| / A_b, sn = s1 s3 w2 / A2
    sign1, sign3 = _sign(w1), _sign(w3)
    sn0 = sign1 * sign3 * w2 / a2
    cn0 = abs(w[b]) / amplitude[b]
    r = math.hypot(sn0, cn0)
    sn0, cn0 = sn0 / r, cn0 / r
    dn0 = math.sqrt(cn0 * cn0 + m1 * sn0 * sn0)
    tau0 = sn0 * float(elliprf(cn0 * cn0, dn0 * dn0, 1.0))
    k = quarter_period(m, m1)
    kp = quarter_period(m1, m)
    if a == 2:
        nb = i3 * (i2 - i1) / (i1 * (i3 - i2))
    else:
        nb = i1 * (i3 - i2) / (i3 * (i2 - i1))
    return _Solution(
        params(regime, m=m, m1=m1, lam=lam, k=k, tau0=tau0, axis=a),
        sort,
        inertia_sorted,
        w,
        a=a,
        sign1=sign1,
        sign3=sign3,
        amplitude=amplitude,
        nb=nb,
        c_amp=inertia_sorted[a] * amplitude[a],
        kprime=kp,
        initial=(sn0, cn0, dn0),
    )


def _validated(
    inertia: ArrayLike, omega0: ArrayLike, q0: ArrayLike = (1.0, 0.0, 0.0, 0.0)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return validate_initial(inertia, omega0, q0)


def elliptic_parameters(inertia: ArrayLike, omega0: ArrayLike) -> EllipticParameters:
    """Regime, ``k^2``, frequency, periods and initial phase of the torque-free motion."""
    inertia, omega0, _ = _validated(inertia, omega0)
    return _prepare(inertia, omega0).params


def _precession_bracket(
    sol: _Solution,
    tau: np.ndarray,
    j: np.ndarray,
    sn: np.ndarray,
    cn: np.ndarray,
    dn: np.ndarray,
) -> np.ndarray:
    """``B(tau) = G Pi(-nb; am tau | m) - c Theta(am tau) / sqrt(1 + nb)``.

    ``sn, cn, dn`` are the functions of the reduced argument ``tau - 2 j K`` (``cn >= 0``).
    """
    p = sol.params
    nb = sol.nb
    root = math.sqrt(1.0 + nb)
    if p.m1 == 0.0:
        # Pi(-nb; phi | 1) = (atanh(sin phi) + sqrt(nb) atan(sqrt(nb) sin phi)) / (1 + nb)
        third = (tau + math.sqrt(nb) * np.arctan(math.sqrt(nb) * sn)) / (1.0 + nb)
    elif nb == 0.0:
        third = tau
    else:
        complete = float(elliprj(0.0, p.m1, 1.0, 1.0 + nb))
        partial = sn**3 * elliprj(cn * cn, dn * dn, 1.0, 1.0 + nb * sn * sn)
        third = tau - nb / 3.0 * (2.0 * j * complete + partial)
    theta = np.pi * j + np.arctan2(root * sn, cn)
    return p.spin * third - sol.c_amp / root * theta


def _omega_sorted(
    sol: _Solution, j: np.ndarray, sn: np.ndarray, cn: np.ndarray, dn: np.ndarray
) -> np.ndarray:
    """Body angular velocity in the sorted frame from the functions of the reduced argument."""
    parity = 1.0 - 2.0 * np.mod(j, 2.0)
    a1, a2, a3 = sol.amplitude
    s1, s3 = sol.sign1, sol.sign3
    out = np.empty(sn.shape + (3,))
    out[:, 1] = s1 * s3 * a2 * parity * sn
    if sol.a == 2:
        out[:, 0] = s1 * a1 * parity * cn
        out[:, 2] = s3 * a3 * dn
    else:
        out[:, 0] = s1 * a1 * dn
        out[:, 2] = s3 * a3 * parity * cn
    return out


def _shortest_rotation(sol: _Solution, spin_body: np.ndarray) -> np.ndarray:
    """Quaternions ``p`` taking ``u = s_a e_a`` to ``m / G`` by the shortest rotation."""
    g = sol.params.spin
    s = sol.sign3 if sol.a == 2 else sol.sign1
    ma = np.abs(spin_body[:, sol.a])
    p = np.zeros((spin_body.shape[0], 4))
    p[:, 0] = g + ma
    if sol.a == 2:  # e3 x m = (-m2, m1, 0)
        p[:, 1] = -s * spin_body[:, 1]
        p[:, 2] = s * spin_body[:, 0]
    else:  # e1 x m = (0, -m3, m2)
        p[:, 2] = -s * spin_body[:, 2]
        p[:, 3] = s * spin_body[:, 1]
    return p / np.sqrt(2.0 * g * (g + ma))[:, None]


def exact(inertia: ArrayLike, omega0: ArrayLike, q0: ArrayLike, t: ArrayLike) -> Trajectory:
    """The exact torque-free motion sampled at the times ``t`` (any order, any sign).

    ``inertia`` are the principal moments in any order, ``omega0`` the initial body angular
    velocity (rad/s) and ``q0`` the initial unit quaternion (body to space). Returns a
    :class:`tumble.freerot.trajectory.Trajectory` with ``omega`` in the body frame and ``q`` body to
    space, continuous in ``t`` and equal to ``q0`` at ``t = 0``.
    """
    inertia, omega0, q0 = _validated(inertia, omega0, q0)
    t = _check.times(t)
    sol = _prepare(inertia, omega0)
    p = sol.params
    if p.regime in ("rest", "steady", "spherical"):
        omega = np.repeat(omega0[None, :], t.shape[0], axis=0)
        q = quat_mul(q0, quat_exp(t[:, None] * omega0))
        return Trajectory(t=t, q=q, omega=omega, inertia=inertia, scheme="exact")

    # angular velocity
    tau = p.lam * t + p.tau0
    j, _, sn, cn, dn = _jacobi_reduced(tau, p.m, p.m1, p.quarter_period, sol.kprime)
    w_sorted = _omega_sorted(sol, j, sn, cn, dn)

    # precession angle about u, zero at t = 0
    bracket = _precession_bracket(sol, tau, j, sn, cn, dn)
    sn0, cn0, dn0 = (np.array([x]) for x in sol.initial)
    bracket0 = _precession_bracket(sol, np.array([p.tau0]), np.zeros(1), sn0, cn0, dn0)[0]
    i1, _, i3 = sol.inertia
    direction = 1.0 if sol.a == 2 else -1.0
    psi = p.spin * t / sol.inertia[sol.a] + direction * (i3 - i1) / (i1 * i3 * p.lam) * (
        bracket - bracket0
    )

    # q = q_c (x) exp(psi u / 2) (x) conj(p(t)) in the sorted frame, then back to the caller's axes
    s_a = sol.sign3 if sol.a == 2 else sol.sign1
    precession = np.zeros((t.shape[0], 4))
    precession[:, 0] = np.cos(0.5 * psi)
    precession[:, 1 + sol.a] = s_a * np.sin(0.5 * psi)
    nutation = _shortest_rotation(sol, w_sorted * sol.inertia) * _CONJ
    sort_q = matrix_to_quat(sol.sort)
    start = _shortest_rotation(sol, (sol.omega0 * sol.inertia)[None, :])[0]
    q_const = quat_mul(quat_mul(q0, sort_q * _CONJ), start)
    q = quat_mul(quat_mul(q_const, quat_mul(precession, nutation)), sort_q)
    return Trajectory(
        t=t,
        q=np.ascontiguousarray(q),
        omega=np.ascontiguousarray(w_sorted @ sol.sort),
        inertia=inertia,
        scheme="exact",
    )
