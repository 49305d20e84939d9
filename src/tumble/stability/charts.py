"""The state manifold of each free-rotation scheme, in body-frame coordinates about a base state.

A scheme's state vector ``y`` (see :mod:`tumble.freerot.base`) is redundant: its quaternion has
unit length, DIR.EM's directors are orthonormal, and ``y[4:7]`` is read off the private state of
the momentum and director schemes. The one-step map acts on a manifold of smaller dimension, and
its linearisation must be taken there, with perturbations that stay on it. A chart about a base
state ``y_b`` maps local coordinates ``x`` (``x = 0`` at ``y_b``) onto the manifold
(:meth:`StateChart.embed`) and back (:meth:`StateChart.coordinates`):

==================================  =====  ===================================================
scheme                              dim    coordinates
==================================  =====  ===================================================
explicit, implicit, rk4, algo_c1    6      attitude ``xi``, angular velocity ``w``
quat_em                             6      ``xi``, ``w`` with ``p = 2 q (x) (0, J w)``
                                           (``|q| = 1`` and ``q . p = 0``, section 4.1)
quat_vi                             7      ``xi``, ``w`` and the gauge ``g``:
                                           ``mu = q (x) (g J_m, 2 J w)``
dir_em                              12     ``xi``, ``W`` and the symmetric ``S`` (6):
                                           ``X^T V = W~ + S``
==================================  =====  ===================================================

``xi`` is the body-frame rotation vector, ``q = q_b (x) exp(xi)`` (for the directors
``X = X_b exp(xi~)``): the quaternion stays on the unit sphere, so its norm and its sign are no
directions of the chart. Every other coordinate is a body-frame quantity, unchanged when the
whole state is rotated in space, so a space rotation of the state moves ``xi`` only; the chart
of ``y_b`` and that of its image after one step measure the same body-frame deviations.

QUAT.VI carries the discrete momentum ``mu_n = D2 L_d(q_{n-1}, q_n)`` in R^4 with no constraint
(Betsch & Siebert 2009, Appendix E): its component along ``q_n`` (``g``, scaled by the mean
moment ``J_m`` to an angular velocity) is never read by the step, a gauge direction. DIR.EM
enforces the orthonormality of its directors on positions only (Betsch & Steinmann 2001), so the
director velocities have nine components: the rigid motions ``W`` and the six components ``S``
normal to them, which the scheme carries from step to step.

Betsch, P. & Siebert, R. (2009), Int. J. Numer. Meth. Engng 79:444-473.
Betsch, P. & Steinmann, P. (2001), Comput. Methods Appl. Mech. Eng. 191:467-488.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tumble.freerot.base import OMEGA, PRIVATE, FreeRotationScheme, Q, SchemeId
from tumble.freerot.dir_em import DIRECTORS, VELOCITIES
from tumble.rotation.quaternion import matrix_to_quat, quat_conj, quat_exp, quat_log, quat_mul
from tumble.rotation.so3 import skew, so3_exp, so3_log, unskew

#: indices of the attitude coordinates (first in every chart)
ATTITUDE = slice(0, 3)
#: indices of the rigid angular-velocity coordinates (``w`` or ``W``)
RATES = slice(3, 6)
#: the symmetric director-velocity components of DIR.EM, in the order of its chart
SYMMETRIC = ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))


@dataclass(frozen=True)
class StateChart:
    """Coordinates of the state manifold of one scheme about a base state.

    ``dim`` is the manifold's dimension, ``gauge`` the coordinates the step never reads, and
    ``velocity_like`` the coordinates in rad/s (the others, ``xi``, are in rad), which set the
    size of finite-difference steps.
    """

    scheme: FreeRotationScheme
    inertia: np.ndarray
    dim: int
    gauge: tuple[int, ...]

    @property
    def velocity_like(self) -> slice:
        return slice(3, self.dim)

    def embed(self, base: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The state at coordinates ``x`` of the chart about ``base``."""
        y = np.zeros(self.scheme.state_size)
        q_b = base[Q]
        q = quat_mul(q_b, quat_exp(x[ATTITUDE]))
        w = x[RATES]
        y[Q] = q
        y[OMEGA] = w
        kind = self.scheme.scheme_id
        if kind in (SchemeId.QUAT_EM, SchemeId.QUAT_VI):
            gauge = x[6] * self.mean_moment if kind == SchemeId.QUAT_VI else 0.0
            pi = np.array([gauge, *(2.0 * self.inertia * w)])
            y[PRIVATE : PRIVATE + 4] = quat_mul(q, pi)
        elif kind == SchemeId.DIR_EM:
            x_b = base[DIRECTORS].reshape(3, 3).T
            frame = x_b @ so3_exp(x[ATTITUDE])
            body = skew(w)
            for n, (i, j) in enumerate(SYMMETRIC):
                body[i, j] += x[6 + n]
                if i != j:
                    body[j, i] += x[6 + n]
            y[DIRECTORS] = frame.T.reshape(9)
            y[VELOCITIES] = (frame @ body).T.reshape(9)
            q = matrix_to_quat(frame)
            y[Q] = q if np.dot(q, q_b) >= 0.0 else -q
            y[OMEGA] = self._director_rates(frame, frame @ body)
        return y

    def coordinates(self, base: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The coordinates of the state ``y`` in the chart about ``base``."""
        x = np.zeros(self.dim)
        kind = self.scheme.scheme_id
        if kind == SchemeId.DIR_EM:
            x_b = base[DIRECTORS].reshape(3, 3).T
            frame = y[DIRECTORS].reshape(3, 3).T
            x[ATTITUDE] = so3_log(x_b.T @ frame)
            body = frame.T @ y[VELOCITIES].reshape(3, 3).T
            x[RATES] = unskew(0.5 * (body - body.T))
            sym = 0.5 * (body + body.T)
            x[6:] = [sym[i, j] for i, j in SYMMETRIC]
            return x
        q = y[Q]
        rel = quat_mul(quat_conj(base[Q]), q)
        x[ATTITUDE] = quat_log(rel / np.linalg.norm(rel))
        if kind in (SchemeId.QUAT_EM, SchemeId.QUAT_VI):
            pi = quat_mul(quat_conj(q), y[PRIVATE : PRIVATE + 4]) / np.dot(q, q)
            x[RATES] = pi[1:] / (2.0 * self.inertia)
            if kind == SchemeId.QUAT_VI:
                x[6] = pi[0] / self.mean_moment
        else:
            x[RATES] = y[OMEGA]
        return x

    @property
    def mean_moment(self) -> float:
        return float(np.mean(self.inertia))

    def _director_rates(self, frame: np.ndarray, velocities: np.ndarray) -> np.ndarray:
        """``y[4:7]`` of DIR.EM: ``Theta W = R^T L`` with ``L = sum D_i d_i x v_i``."""
        a, b, c = self.inertia
        euler = 0.5 * np.array([b + c - a, a + c - b, a + b - c])
        spin = np.sum(euler[:, None] * np.cross(frame.T, velocities.T), axis=0)
        return np.asarray(frame.T @ spin / self.inertia)


def chart_of(scheme: FreeRotationScheme, inertia: np.ndarray) -> StateChart:
    """The chart of ``scheme``'s state manifold (see the module docstring)."""
    dims = {SchemeId.QUAT_VI: 7, SchemeId.DIR_EM: 12}
    dim = dims.get(scheme.scheme_id, 6)
    gauge = (6,) if scheme.scheme_id == SchemeId.QUAT_VI else ()
    return StateChart(scheme, np.asarray(inertia, dtype=np.float64), dim, gauge)
