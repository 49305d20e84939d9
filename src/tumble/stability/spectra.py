"""Eigenvalues of steady rotation: continuous (eq. 44), one step of any scheme, and the closed
form for the explicit scheme (eq. 55-60, re-derived), with a verdict.

Notation as in :mod:`tumble.stability.linearize`: rotation at rate ``Omega`` about principal axis
``k``, ``C`` its moment, ``A`` and ``B`` the moments of the two other axes in cyclic order.

Continuous eigenvalues (eq. 43-44)::

    lambda_1 = 0,   lambda_2,3 = +- sqrt(Omega^2 (A - C)(C - B) / (A B))

imaginary about the major and the minor axis (inconclusive: the Lyapunov function of
:mod:`tumble.stability.manifold` decides), real and of both signs about the intermediate axis
(saddle, unstable).

Explicit scheme, closed form. Inserting ``w^k = w_* + alpha^k`` into eq. 45 and dropping terms
of second order gives eq. 52, ``Theta_hat (alpha^{k+1} - alpha^k) + dt A alpha^k = 0`` with
``A`` of eq. 42 and ``Theta_hat = Theta + dt/2 G(w_*)``. Here
``G(w_*) = Theta w_*~ + w_*~ Theta`` has the entries ``G_ji = -G_ij = Omega (A + B)`` only, so
with ``h = dt / 2``, ``P = A + B`` and ``delta = A B + h^2 Omega^2 P^2``::

    det Theta_hat = C delta = A B C + dt^2/4 Omega^2 C (A + B)^2

(the printed eq. 54 lacks the factor ``Omega^2`` in the second term), and the ``(i, j)`` block of
``Theta_hat^-1`` is ``[[B, h Omega P], [-h Omega P, A]] / delta``, its ``(k, k)`` entry ``1 / C``.
Multiplying out ``D = I - dt Theta_hat^-1 A`` (eq. 55) gives the entries of
:func:`tumble.stability.linearize.explicit_linear_map`; ``D_12`` and ``D_21`` of the printed
eq. 56 carry each other's factors. The characteristic polynomial (eq. 57) is
``(lambda - 1)(lambda^2 - b lambda + c)`` with::

    b = D_ii + D_jj = 2 - d
    c = det D = det(Theta_hat - dt A) / det Theta_hat = 1 - d - e
    d = dt^2 Omega^2 (A + B)(A + B - 2C) / (2 delta)
    e = dt^2 Omega^2 (A - C)(C - B) / delta

(``d`` and ``e`` are eq. 60 with ``C / det Theta_hat = 1 / delta``; the printed ``c`` reads
``1 + d - e``, a sign error in its first term, while eq. 59 is right). Hence (eq. 58-59)::

    lambda_1,2 = 1 - d/2 +- sqrt(d^2 + 4 e) / 2,     lambda_3 = 1,

``lambda_3`` belonging to the rate direction ``e_k`` (a perturbation of the rate alone is another
steady rotation). Consequences: about the major axis ``d < 0`` and ``e <= 0``; a complex pair
has ``|lambda|^2 = c = 1 - d - e > 1`` and a real pair has ``lambda_1 > 1``: unstable for every
``dt > 0``, with ``|lambda| - 1 = O(dt^2)``. About the minor axis, with ``a = A - C``,
``b' = B - C`` both ``>= 0``, ``d + e = dt^2 Omega^2 (a^2 + b'^2 + 2 C (a + b')) / (2 delta) > 0``,
so ``|lambda_1,2| < 1``: the explicit scheme damps perturbations about the minor axis (it is
asymptotically stable there, which the exact motion is not). About the intermediate axis
``e > 0`` and ``lambda_1 > 1``.

Leine, R.I., Capobianco, G., Bartelt, P., Christen, M. & Caviezel, A. (2021), Multibody Syst.
Dyn. 52:431-455, sections 3.3 and 4.1.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from tumble.freerot.base import FreeRotationScheme
from tumble.stability.linearize import (
    RELATIVE_STEP,
    cyclic_axes,
    one_step_jacobian,
    steady_rotation_args,
)

#: verdicts of :func:`verdict`
VERDICTS = ("stable", "neutral", "unstable")


def continuous_eigenvalues(inertia: ArrayLike, axis: int | str, rate: float) -> np.ndarray:
    """``(0, +sqrt(.), -sqrt(.))`` of eq. 44 as complex numbers, for rotation about ``axis``."""
    inertia, k, omega = steady_rotation_args(inertia, axis, rate)
    i, j, _ = cyclic_axes(k)
    a, b, c = inertia[i], inertia[j], inertia[k]
    root = np.sqrt(complex(omega * omega * (a - c) * (c - b) / (a * b)))
    return np.array([0.0, root, -root], dtype=complex)


def explicit_spectrum_closed_form(
    inertia: ArrayLike, axis: int | str, rate: float, dt: float
) -> np.ndarray:
    """``(lambda_1, lambda_2, 1)`` of eq. 58-60 (corrected, see the module docstring)."""
    inertia, k, omega = steady_rotation_args(inertia, axis, rate, dt)
    i, j, _ = cyclic_axes(k)
    a, b, c = inertia[i], inertia[j], inertia[k]
    delta = a * b + (0.5 * dt * omega * (a + b)) ** 2
    s = dt * dt * omega * omega / delta
    d = 0.5 * s * (a + b) * (a + b - 2.0 * c)
    e = s * (a - c) * (c - b)
    root = np.sqrt(complex(d * d + 4.0 * e))
    return np.array([1.0 - 0.5 * d + 0.5 * root, 1.0 - 0.5 * d - 0.5 * root, 1.0], dtype=complex)


def one_step_spectrum(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    axis: int | str,
    rate: float,
    dt: float,
    rel_step: float = RELATIVE_STEP,
) -> np.ndarray:
    """Complex eigenvalues of one step of ``scheme`` linearised about ``w_* = rate e_axis``.

    ``scheme`` is a name of :data:`tumble.freerot.STEPPERS` or a scheme instance, ``axis`` an
    index 0-2 or ``"major"``, ``"intermediate"``, ``"minor"``. The Jacobian is taken numerically
    from the scheme's own step (:func:`tumble.stability.linearize.one_step_jacobian`).
    Eigenvalues are sorted by decreasing modulus.
    """
    jac = one_step_jacobian(scheme, inertia, axis, rate, dt, rel_step)
    eig = np.linalg.eigvals(jac).astype(complex)
    return eig[np.argsort(-np.abs(eig), kind="stable")]


def transverse_spectrum(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    axis: int | str,
    rate: float,
    dt: float,
    rel_step: float = RELATIVE_STEP,
) -> np.ndarray:
    """The two eigenvalues of :func:`one_step_spectrum` other than the rate direction's.

    A perturbation of the rate alone is another steady rotation, so column ``k`` of the Jacobian
    is ``e_k`` and the map is block triangular: its eigenvalues are 1 and those of the block of
    the two transverse axes ``(i, j)``, returned here (sorted by decreasing modulus). Their
    modulus shows damping (``< 1``) that the full spectral radius, never below 1, hides.
    """
    inertia_, k, _ = steady_rotation_args(inertia, axis, rate, dt)
    i, j, _ = cyclic_axes(k)
    jac = one_step_jacobian(scheme, inertia_, k, rate, dt, rel_step)
    eig = np.linalg.eigvals(jac[np.ix_([i, j], [i, j])]).astype(complex)
    return eig[np.argsort(-np.abs(eig), kind="stable")]


def spectral_radius(eigenvalues: ArrayLike) -> float:
    """The largest modulus of the eigenvalues."""
    return float(np.max(np.abs(np.asarray(eigenvalues))))


def verdict(eigenvalues: ArrayLike, tol: float = 1e-9, matrix: ArrayLike | None = None) -> str:
    """Linear stability of a one-step map from its eigenvalues.

    * ``"unstable"``: spectral radius ``> 1 + tol``; perturbations grow geometrically.
    * ``"stable"``: every modulus ``<= 1 + tol`` and the eigenvalues on the unit circle
      (``||lambda| - 1| <= tol``) are distinct, hence semisimple: the powers of the map stay
      bounded. This includes the eigenvalue 1 of the rate direction that every scheme has, a
      conservative pair ``exp(+-i theta)`` (implicit midpoint) and damped pairs inside the circle
      (explicit scheme about the minor axis, RK4).
    * ``"neutral"``: every modulus ``<= 1 + tol`` but two eigenvalues on the unit circle coincide
      (closer than ``sqrt(tol)``, the split of a perturbed double root): the eigenvalues alone do
      not tell a semisimple double root from a Jordan block, whose powers grow linearly. This is
      the case at ``rate = 0`` or as ``dt -> 0``, where the map tends to the identity.

    With the ``matrix`` whose eigenvalues they are, a multiple eigenvalue on the circle is
    examined instead: it is semisimple (``"stable"``) when ``matrix - lambda 1`` has as many
    singular values below ``sqrt(tol)`` (relative to the matrix's norm) as the eigenvalue's
    multiplicity, as for DIR.EM's director velocities normal to the rigid motions (eigenvalue -1
    twice); otherwise a Jordan block is possible and the verdict stays ``"neutral"``.
    """
    eig = np.asarray(eigenvalues, dtype=complex).ravel()
    if eig.size == 0 or not np.all(np.isfinite(eig)):
        raise ValueError("eigenvalues must be a non-empty array of finite numbers")
    if not (0.0 < tol < 1.0):
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    moduli = np.abs(eig)
    if moduli.max() > 1.0 + tol:
        return "unstable"
    on_circle = eig[np.abs(moduli - 1.0) <= tol]
    gaps = np.abs(on_circle[:, None] - on_circle[None, :])
    np.fill_diagonal(gaps, np.inf)
    degenerate = bool(gaps.size) and gaps.min() < np.sqrt(tol)
    if degenerate and (matrix is None or not _semisimple(on_circle, gaps, np.asarray(matrix), tol)):
        return "neutral"
    return "stable"


def _semisimple(on_circle: np.ndarray, gaps: np.ndarray, matrix: np.ndarray, tol: float) -> bool:
    """Whether every cluster of coinciding eigenvalues on the circle has a full eigenspace."""
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"matrix must be square, got shape {matrix.shape}")
    scale = max(1.0, float(np.linalg.norm(matrix, 2)))
    for n, lam in enumerate(on_circle):
        multiplicity = int(np.sum(gaps[n] < np.sqrt(tol))) + 1
        if multiplicity == 1:
            continue
        sigma = np.linalg.svd(matrix - lam * np.eye(matrix.shape[0]), compute_uv=False)
        if int(np.sum(sigma < np.sqrt(tol) * scale)) < multiplicity:
            return False
    return True
