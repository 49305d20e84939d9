"""Linearisation about steady rotation: the Euler equations and the one-step map of a scheme.

Steady rotation about principal axis ``k`` at rate ``Omega`` is ``w_* = Omega e_k``. Write
``(i, j, k)`` for the cyclic order ending in ``k`` (``i = k+1``, ``j = k+2`` modulo 3) and
``A = Theta_i``, ``B = Theta_j``, ``C = Theta_k``; a cyclic relabelling is a proper rotation, so
the formulas of Leine et al. 2021, written for ``e_* = e3``, hold verbatim in these components.

Continuous (eq. 39-42): the angular velocity error ``alpha = w - w_*`` obeys, to first order,
``alpha' = -Theta^-1 A alpha`` with ``A = w_*~ Theta - (Theta w_*)~``, whose only non-zero
entries are ``A_ij = Omega (C - B)`` and ``A_ji = Omega (A - C)``.

Discrete: one step of a scheme maps ``w0`` to ``w1``; its Jacobian at ``w_*`` (where ``w1 = w0``,
as every scheme keeps steady rotation steady) is the linearised map of angular-velocity
perturbations. :func:`one_step_jacobian` computes it from the scheme itself, by differentiating
:func:`tumble.freerot.step` numerically; :func:`explicit_linear_map` is the closed form for the
explicit scheme (eq. 52-56, corrected; see :func:`tumble.stability.explicit_spectrum_closed_form`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies.inertia import principal_inertia
from tumble.freerot import get_scheme, step
from tumble.freerot.base import FreeRotationScheme
from tumble.stability.manifold import resolve_axis

#: perturbation size of the central differences, relative to the scale of the map
RELATIVE_STEP = 1e-3


def steady_rotation_args(
    inertia: ArrayLike, axis: int | str, rate: float, dt: float | None = None
) -> tuple[np.ndarray, int, float]:
    """Validated ``(inertia, axis index, rate)``; the moments as a fresh writeable array (the
    compiled step is specialised on the array type, and bodies hold read-only moments)."""
    inertia = np.array(principal_inertia(inertia))
    k = resolve_axis(inertia, axis)
    if not (isinstance(rate, int | float | np.floating) and np.isfinite(rate)):
        raise ValueError(f"rate must be a finite angular velocity (rad/s), got {rate!r}")
    if dt is not None and not (
        isinstance(dt, int | float | np.floating) and np.isfinite(dt) and dt > 0
    ):
        raise ValueError(f"dt must be a positive finite time step (s), got {dt!r}")
    return inertia, k, float(rate)


def cyclic_axes(axis: int) -> tuple[int, int, int]:
    """``(i, j, k)``: the cyclic order of the principal axes that ends in ``axis``."""
    return (axis + 1) % 3, (axis + 2) % 3, axis


def euler_jacobian(inertia: ArrayLike, axis: int | str, rate: float) -> np.ndarray:
    """``-Theta^-1 A`` of eq. 40-42: the Euler equations linearised about ``w_* = rate e_axis``."""
    inertia, k, rate = steady_rotation_args(inertia, axis, rate)
    i, j, _ = cyclic_axes(k)
    a, b, c = inertia[i], inertia[j], inertia[k]
    jac = np.zeros((3, 3))
    jac[i, j] = -rate * (c - b) / a
    jac[j, i] = -rate * (a - c) / b
    return jac


def explicit_linear_map(inertia: ArrayLike, axis: int | str, rate: float, dt: float) -> np.ndarray:
    """The matrix ``D`` of eq. 55-56 (corrected): ``alpha^{k+1} = D alpha^k`` for the explicit
    scheme about ``w_* = rate e_axis``.

    With ``delta = A B + (dt Omega / 2)^2 (A + B)^2`` (so that ``det Theta_hat = C delta``)::

        D_ii = 1 - dt^2 Omega^2 (A + B)(A - C) / (2 delta),   D_ij = -dt Omega B (C - B) / delta,
        D_ji = -dt Omega A (A - C) / delta,   D_jj = 1 + dt^2 Omega^2 (A + B)(C - B) / (2 delta),
        D_kk = 1.

    (The printed eq. 56 exchanges the factors ``A (A - C)`` and ``B (C - B)`` of ``D_12`` and
    ``D_21``; the eigenvalues do not notice, as only the product ``D_12 D_21`` enters them.)
    """
    inertia, k, omega = steady_rotation_args(inertia, axis, rate, dt)
    i, j, _ = cyclic_axes(k)
    a, b, c = inertia[i], inertia[j], inertia[k]
    p = a + b
    delta = a * b + (0.5 * dt * omega * p) ** 2
    d_map = np.zeros((3, 3))
    d_map[i, i] = 1.0 - dt * dt * omega * omega * p * (a - c) / (2.0 * delta)
    d_map[i, j] = -dt * omega * b * (c - b) / delta
    d_map[j, i] = -dt * omega * a * (a - c) / delta
    d_map[j, j] = 1.0 + dt * dt * omega * omega * p * (c - b) / (2.0 * delta)
    d_map[k, k] = 1.0
    return d_map


def one_step_omega(
    scheme: FreeRotationScheme, inertia: np.ndarray, omega0: ArrayLike, dt: float
) -> np.ndarray:
    """``w1`` after one step from the identity attitude with angular velocity ``omega0``.

    The initial state comes from the scheme's own ``initial_state`` so that any private state
    (quaternion momenta, director velocities, the previous step) is consistent with ``omega0``.
    The linearised map is therefore that of a step restarted from a consistent state. Where
    ``y[4:7]`` is a projection of a richer private state this differs from the scheme's own
    recurrence: DIR.EM's director velocities acquire a component normal to the rigid motions,
    which the restart discards, so its restarted map is conservative only to O(dt^4).
    """
    q0 = np.array([1.0, 0.0, 0.0, 0.0])
    y0 = scheme.initial_state(inertia, q0, np.asarray(omega0, dtype=np.float64), dt, np.zeros(4))
    return step(scheme, inertia, y0, dt)[4:7]


def one_step_jacobian(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    axis: int | str,
    rate: float,
    dt: float,
    rel_step: float = RELATIVE_STEP,
) -> np.ndarray:
    """Jacobian ``d w1 / d w0`` of one step of ``scheme`` at ``w0 = rate e_axis``.

    Central differences with steps ``h, h/2, h/4`` combined by two Richardson extrapolations
    (truncation error ``O(h^6)``). The map depends on ``w`` through ``dt w``, so the step is
    ``h = rel_step * min(|rate|, 1/dt)`` (``1/dt`` when ``rate = 0``), which keeps the round-off
    (relative ``eps / rel_step``) and the truncation (``(h dt)^6``) both below ~1e-12. A failing
    step raises :class:`tumble.status.KernelError`.
    """
    inertia, k, omega = steady_rotation_args(inertia, axis, rate, dt)
    stepper = get_scheme(scheme)
    dt = float(dt)
    scale = min(abs(omega), 1.0 / dt) if omega != 0.0 else 1.0 / dt
    h0 = rel_step * scale
    w_star = np.zeros(3)
    w_star[k] = omega

    def central(h: float) -> np.ndarray:
        jac = np.empty((3, 3))
        for col in range(3):
            dw = np.zeros(3)
            dw[col] = h
            jac[:, col] = (
                one_step_omega(stepper, inertia, w_star + dw, dt)
                - one_step_omega(stepper, inertia, w_star - dw, dt)
            ) / (2.0 * h)
        return jac

    j1, j2, j4 = central(h0), central(h0 / 2), central(h0 / 4)
    r1 = (4.0 * j2 - j1) / 3.0
    r2 = (4.0 * j4 - j2) / 3.0
    return (16.0 * r2 - r1) / 15.0
