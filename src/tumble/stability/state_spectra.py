"""One-step spectra on each scheme's own state manifold, split into trivial and transverse parts.

Steady rotation at rate ``Omega`` about principal axis ``k`` is a relative equilibrium of every
scheme: one step maps the state ``y_b`` to ``g . y_b``, the same state rotated in space by the
step's rotation ``g`` about the spin axis (every scheme is equivariant under space rotations of a
free body). In the body-frame chart of :mod:`tumble.stability.charts` the map from the chart of
``y_b`` to that of ``g . y_b`` therefore has the fixed point ``x_b``, and its Jacobian ``M``
(``dim x dim``, central differences with two Richardson extrapolations, as
:func:`tumble.stability.linearize.one_step_jacobian`) is the linearised one-step map on the true
state. Its eigenvalues fall into two groups:

* **trivial**, those of the invariant subspace spanned by
    - the three attitude directions ``xi`` (space rotations of the state, a symmetry): the
      eigenvalues of a rotation matrix, ``1`` (rotation about the spin axis, the phase of the
      motion) and ``exp(+-i theta)`` (the direction of the spin), ``theta`` the step's angle;
    - the family of steady rotations at a neighbouring rate (the spin magnitude and the energy,
      conserved): eigenvalue 1, in a Jordan block with the phase, which drifts linearly;
    - gauge directions the step never reads (the component of QUAT.VI's momentum along ``q``):
      eigenvalue 0;
* **transverse**, those of the map induced on the quotient by that subspace: the angular-velocity
  pair ``(w_i, w_j)`` of Leine et al. 2021 (eq. 52-60), and for DIR.EM six more, the director
  velocities normal to the rigid motions.

The transverse spectral radius decides stability (:func:`tumble.stability.spectra.verdict` on
the transverse eigenvalues): the trivial ones lie on the unit circle (or at 0) for every scheme,
and the Jordan block of phase and rate makes the attitude drift linearly for the exact motion too.
Below 1 the scheme damps perturbations of the steady rotation, which the full spectral radius,
never below 1, hides.

For the schemes whose state is ``(q, w)`` or equivalent (all but DIR.EM) the transverse pair
equals the two non-trivial eigenvalues of the angular-velocity map of
:func:`tumble.stability.spectra.one_step_spectrum`, which restarts each step from a consistent
state; for DIR.EM that restart discards the normal velocities the scheme carries and is
conservative only to O(dt^4), while the map on its 12-dimensional manifold is conservative.

Leine, R.I., Capobianco, G., Bartelt, P., Christen, M. & Caviezel, A. (2021), Multibody Syst.
Dyn. 52:431-455, section 4.1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from tumble.freerot import get_scheme, step
from tumble.freerot.base import FreeRotationScheme
from tumble.stability.charts import ATTITUDE, RATES, StateChart, chart_of
from tumble.stability.linearize import RELATIVE_STEP, steady_rotation_args
from tumble.stability.spectra import spectral_radius, verdict

#: relative mismatch of the body-frame coordinates after one step above which the base state is
#: not a relative equilibrium of the scheme
EQUILIBRIUM_TOL = 1e-9


@dataclass(frozen=True)
class StateSpectrum:
    """Eigenvalues of one step linearised on the scheme's state manifold (module docstring).

    ``symmetry``: the three of the attitude directions; ``rate``: the one of the neighbouring
    steady rotations; ``gauge``: those of the directions the step does not read; ``transverse``:
    the rest, sorted by decreasing modulus, of which ``rigid`` are the two of the angular-velocity
    pair, and ``transverse_map`` the matrix whose eigenvalues they are. ``residual`` is the
    largest entry of the block that must vanish for the trivial subspace to be invariant,
    relative to the largest entry of the map (a check of the split).
    """

    scheme: str
    axis: int
    rate_value: float
    dt: float
    dim: int
    symmetry: np.ndarray
    rate: complex
    gauge: np.ndarray
    transverse: np.ndarray
    rigid: np.ndarray
    residual: float
    transverse_map: np.ndarray

    @property
    def trivial(self) -> np.ndarray:
        """Every trivial eigenvalue: symmetry, rate, gauge."""
        return np.concatenate([self.symmetry, [self.rate], self.gauge]).astype(complex)

    @property
    def eigenvalues(self) -> np.ndarray:
        """All ``dim`` eigenvalues, sorted by decreasing modulus."""
        eig = np.concatenate([self.trivial, self.transverse])
        return eig[np.argsort(-np.abs(eig), kind="stable")]

    @property
    def transverse_radius(self) -> float:
        """Spectral radius of the transverse part; it decides the verdict."""
        return spectral_radius(self.transverse)

    @property
    def spectral_radius(self) -> float:
        """Spectral radius of the whole map on the manifold (at least that of the trivial 1)."""
        return spectral_radius(self.eigenvalues)

    @property
    def angular_velocity_eigenvalues(self) -> np.ndarray:
        """The rigid pair and the rate's eigenvalue, sorted by decreasing modulus: the three
        eigenvalues of the angular-velocity map of Leine et al. 2021, eq. 57."""
        eig = np.concatenate([self.rigid, [self.rate]]).astype(complex)
        return eig[np.argsort(-np.abs(eig), kind="stable")]

    def verdict(self, tol: float = 1e-9) -> str:
        """:func:`tumble.stability.spectra.verdict` of the transverse eigenvalues, with the
        transverse map to tell a multiple eigenvalue on the unit circle from a Jordan block."""
        return verdict(self.transverse, tol, self.transverse_map)


def _base_state(
    stepper: FreeRotationScheme, chart: StateChart, k: int, rate: float, dt: float
) -> np.ndarray:
    """The steady rotation after one step from the scheme's own initial state (so that private
    state the step sets, like QUAT.VI's gauge, has its steady value)."""
    w = np.zeros(3)
    w[k] = rate
    y0 = stepper.initial_state(chart.inertia, np.array([1.0, 0.0, 0.0, 0.0]), w, dt, np.zeros(4))
    return step(stepper, chart.inertia, y0, dt)


def state_jacobian(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    axis: int | str,
    rate: float,
    dt: float,
    rel_step: float = RELATIVE_STEP,
) -> tuple[np.ndarray, np.ndarray, StateChart]:
    """``(M, rate_direction, chart)``: the Jacobian of one step on the state manifold about steady
    rotation at ``rate`` about ``axis``, in the chart coordinates, and the tangent of the family
    of steady rotations at that rate.

    Finite-difference steps are ``rel_step`` for the attitude (rad) and ``rel_step * min(|rate|,
    1/dt)`` for the coordinates in rad/s; ValueError if the steady rotation is not a relative
    equilibrium of the scheme, :class:`tumble.status.KernelError` if a step fails.
    """
    inertia, k, omega = steady_rotation_args(inertia, axis, rate, dt)
    stepper = get_scheme(scheme)
    chart = chart_of(stepper, inertia)
    dt = float(dt)
    base = _base_state(stepper, chart, k, omega, dt)
    image = step(stepper, inertia, base, dt)
    x_b = chart.coordinates(base, base)
    x_i = chart.coordinates(image, image)
    scale = min(abs(omega), 1.0 / dt) if omega != 0.0 else 1.0 / dt
    if np.abs(x_i[3:] - x_b[3:]).max() > EQUILIBRIUM_TOL * max(abs(omega), scale):
        raise ValueError(
            f"steady rotation is not a relative equilibrium of {stepper.name}: its body-frame "
            f"state changes by {np.abs(x_i[3:] - x_b[3:]).max():.3g} in one step"
        )
    steps = np.full(chart.dim, rel_step)
    steps[chart.velocity_like] *= scale

    def central(f: float) -> np.ndarray:
        jac = np.empty((chart.dim, chart.dim))
        for col in range(chart.dim):
            dx = np.zeros(chart.dim)
            dx[col] = f * steps[col]
            plus = step(stepper, inertia, chart.embed(base, x_b + dx), dt)
            minus = step(stepper, inertia, chart.embed(base, x_b - dx), dt)
            jac[:, col] = (chart.coordinates(image, plus) - chart.coordinates(image, minus)) / (
                2.0 * dx[col]
            )
        return jac

    j1, j2, j4 = central(1.0), central(0.5), central(0.25)
    r1 = (4.0 * j2 - j1) / 3.0
    r2 = (4.0 * j4 - j2) / 3.0
    jac = (16.0 * r2 - r1) / 15.0

    # tangent of the steady rotations: body-frame coordinates of the base state against the rate
    h = rel_step * scale
    upper = chart.coordinates(*(2 * [_base_state(stepper, chart, k, omega + h, dt)]))
    lower = chart.coordinates(*(2 * [_base_state(stepper, chart, k, omega - h, dt)]))
    direction = (upper - lower) / (2.0 * h)
    direction[ATTITUDE] = 0.0
    return jac, direction, chart


def state_spectrum(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    axis: int | str,
    rate: float,
    dt: float,
    rel_step: float = RELATIVE_STEP,
) -> StateSpectrum:
    """Eigenvalues of one step of ``scheme`` on its state manifold about ``w_* = rate e_axis``,
    split into the trivial and the transverse parts (module docstring)."""
    inertia_, k, omega = steady_rotation_args(inertia, axis, rate, dt)
    jac, direction, chart = state_jacobian(scheme, inertia_, k, omega, dt, rel_step)
    dim = chart.dim
    trivial = [np.eye(dim)[:, n] for n in range(3)] + [direction]
    trivial += [np.eye(dim)[:, n] for n in chart.gauge]
    basis_t = np.stack(trivial, axis=1)
    n_t = basis_t.shape[1]
    full, _ = np.linalg.qr(basis_t, mode="complete")
    basis = np.concatenate([basis_t, full[:, n_t:]], axis=1)
    m = np.linalg.solve(basis, jac @ basis)

    # blocks: attitude (3), rate (1), gauge, transverse; block lower triangular part vanishes
    edges = [0, 3, 4, n_t, dim]
    below = [
        np.abs(m[edges[b + 1] :, edges[b] : edges[b + 1]]).max(initial=0.0)
        for b in range(len(edges) - 2)
    ]
    residual = max(below) / max(np.abs(m).max(), 1.0)
    symmetry = np.linalg.eigvals(m[:3, :3]).astype(complex)
    gauge = np.linalg.eigvals(m[4:n_t, 4:n_t]).astype(complex) if n_t > 4 else np.zeros(0, complex)
    values, vectors = np.linalg.eig(m[n_t:, n_t:])
    order = np.argsort(-np.abs(values), kind="stable")
    values, vectors = values[order].astype(complex), vectors[:, order]
    # the angular-velocity pair: the two modes with most weight on the rigid rates
    modes = basis[:, n_t:] @ vectors
    weight = np.linalg.norm(modes[RATES], axis=0) / np.linalg.norm(modes[3:], axis=0)
    rigid = values[np.sort(np.argsort(-weight, kind="stable")[:2])]
    return StateSpectrum(
        scheme=get_scheme(scheme).name,
        axis=k,
        rate_value=omega,
        dt=float(dt),
        dim=dim,
        symmetry=symmetry[np.argsort(-np.abs(symmetry), kind="stable")],
        rate=complex(m[3, 3]),
        gauge=gauge,
        transverse=values,
        rigid=rigid,
        residual=float(residual),
        transverse_map=m[n_t:, n_t:],
    )
