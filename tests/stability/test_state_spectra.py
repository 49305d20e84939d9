"""One-step spectra on each scheme's own state manifold: charts, the split into trivial and
transverse eigenvalues, and verdicts checked against long simulations.

Reference body: the cuboid of Leine et al. 2021 (3 x 2 x 1 m, 1 kg), I = (5/12, 10/12, 13/12).
"""

from __future__ import annotations

import numpy as np
import pytest

from tumble.freerot import STEPPERS, advance, get_scheme, step
from tumble.rotation.quaternion import quat_conj, quat_log, quat_mul
from tumble.stability import (
    explicit_spectrum_closed_form,
    one_step_spectrum,
    resolve_axis,
    state_spectrum,
    verdict,
)
from tumble.stability.charts import chart_of
from tumble.stability.state_spectra import _base_state

CUBOID = np.array([5 / 12, 10 / 12, 13 / 12])
RATE = 10.0


def match(a, b) -> float:
    """Largest distance from an element of ``a`` to its nearest element of ``b`` and back."""
    a, b = np.asarray(a), np.asarray(b)
    gaps = np.abs(a[:, None] - b[None, :])
    return max(gaps.min(axis=1).max(), gaps.min(axis=0).max())


@pytest.mark.parametrize("scheme", list(STEPPERS))
def test_chart_round_trip_stays_on_the_manifold(scheme):
    stepper = get_scheme(scheme)
    chart = chart_of(stepper, CUBOID)
    base = _base_state(stepper, chart, 2, RATE, 0.01)
    x = chart.coordinates(base, base) + np.random.default_rng(3).normal(0.0, 0.1, chart.dim)
    y = chart.embed(base, x)
    assert np.abs(chart.coordinates(base, y) - x).max() < 1e-12
    assert abs(np.linalg.norm(y[:4]) - 1.0) < 1e-14
    if scheme == "dir_em":
        frame = y[7:16].reshape(3, 3).T
        assert np.abs(frame.T @ frame - np.eye(3)).max() < 1e-14
    if scheme == "quat_em":
        assert abs(np.dot(y[:4], y[7:11])) < 1e-13  # the hidden constraint q . p = 0


@pytest.mark.parametrize("scheme", list(STEPPERS))
@pytest.mark.parametrize("axis", ["minor", "intermediate", "major"])
def test_trivial_eigenvalues_are_the_symmetries(scheme, axis):
    """Attitude: 1 and exp(+-i theta), theta the angle of one step; rate: 1; gauge: 0."""
    dt = 0.05
    sp = state_spectrum(scheme, CUBOID, axis, RATE, dt)
    stepper = get_scheme(scheme)
    base = _base_state(stepper, chart_of(stepper, CUBOID), resolve_axis(CUBOID, axis), RATE, dt)
    image = step(stepper, CUBOID, base, dt)
    theta = np.linalg.norm(quat_log(quat_mul(quat_conj(base[:4]), image[:4])))
    expected = [1.0, np.exp(1j * theta), np.exp(-1j * theta)]
    assert match(sp.symmetry, expected) < 1e-9
    assert abs(sp.rate - 1.0) < 1e-9
    assert np.abs(sp.gauge).max(initial=0.0) < 1e-9
    assert sp.gauge.size == (1 if scheme == "quat_vi" else 0)
    assert sp.residual < 1e-6
    assert sp.dim == {"quat_vi": 7, "dir_em": 12}.get(scheme, 6)
    assert sp.transverse.size == sp.dim - 4 - sp.gauge.size


@pytest.mark.parametrize("scheme", [s for s in STEPPERS if s != "dir_em"])
@pytest.mark.parametrize("axis", ["minor", "intermediate", "major"])
def test_transverse_pair_equals_angular_velocity_map_where_the_state_is_q_and_omega(scheme, axis):
    for dt in (0.01, 0.05):
        sp = state_spectrum(scheme, CUBOID, axis, RATE, dt)
        assert (
            match(
                sp.angular_velocity_eigenvalues, one_step_spectrum(scheme, CUBOID, axis, RATE, dt)
            )
            < 1e-8
        )


@pytest.mark.parametrize("axis", ["minor", "major"])
@pytest.mark.parametrize("dt", [0.01, 0.05])
def test_dir_em_is_conservative_on_its_manifold(axis, dt):
    """The restarted angular-velocity map of DIR.EM exceeds 1 about the minor axis (1 + 6e-7 at
    dt 0.01, 1 + 3.6e-4 at dt 0.05); on the 12-dimensional manifold of directors and director
    velocities every transverse eigenvalue lies on the unit circle."""
    sp = state_spectrum("dir_em", CUBOID, axis, RATE, dt)
    assert np.abs(np.abs(sp.transverse) - 1.0).max() < 1e-9
    assert sp.transverse.size == 8
    assert sp.verdict() == "stable"
    # the rigid pair is close to the restarted map's (same second-order scheme)
    restarted = one_step_spectrum("dir_em", CUBOID, axis, RATE, dt)
    assert match(sp.angular_velocity_eigenvalues, restarted) < 0.02 * (dt * RATE) ** 2


def test_explicit_damping_about_the_minor_axis_shows_in_the_transverse_radius():
    sp = state_spectrum("explicit", CUBOID, "minor", RATE, 0.01)
    closed = explicit_spectrum_closed_form(CUBOID, 0, RATE, 0.01)[:2]
    assert match(sp.transverse, closed) < 1e-8
    assert sp.transverse_radius < 1 - 1e-3
    assert abs(sp.spectral_radius - 1.0) < 1e-9  # the whole map hides it behind the trivial 1


def test_verdict_tells_a_double_root_from_a_jordan_block():
    lam = np.array([-1.0, -1.0, 0.5])
    assert verdict(lam) == "neutral"
    assert verdict(lam, matrix=np.diag(lam)) == "stable"
    jordan = np.array([[-1.0, 0.1, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 0.5]])
    assert verdict(lam, matrix=jordan) == "neutral"
    with pytest.raises(ValueError, match="square"):
        verdict(lam, matrix=np.ones((3, 2)))


# ----------------------------------------------------------------------------------------------
# verdicts against long simulations


def _deviation_history(scheme: str, axis: str, dt: float, n_steps: int) -> np.ndarray:
    """Body-frame deviation from steady rotation, every 10 steps, after a perturbation of size
    1e-8 Omega of every manifold coordinate other than attitude, rate and gauge."""
    stepper = get_scheme(scheme)
    chart = chart_of(stepper, CUBOID)
    k = resolve_axis(CUBOID, axis)
    base = _base_state(stepper, chart, k, RATE, dt)
    x_b = chart.coordinates(base, base)
    keep = [n for n in range(3, chart.dim) if n != 3 + k and n not in chart.gauge]
    dx = np.zeros(chart.dim)
    dx[keep] = np.random.default_rng(7).choice([-1.0, 1.0], len(keep)) * 1e-8 * RATE
    states = advance(stepper, CUBOID, chart.embed(base, x_b + dx), dt, n_steps, save_every=10)
    dev = np.array([chart.coordinates(y, y)[keep] - x_b[keep] for y in states])
    return np.linalg.norm(dev, axis=1) / np.linalg.norm(dx)


@pytest.mark.parametrize("scheme", list(STEPPERS))
@pytest.mark.parametrize("axis", ["minor", "intermediate", "major"])
@pytest.mark.parametrize("dt", [0.01, 0.05])
def test_verdict_agrees_with_twenty_thousand_steps(scheme, axis, dt):
    """Stable: the deviation stays within a small factor of the perturbation over 2e4 steps
    (200 or 1000 s, 300 to 1600 revolutions). Unstable: it grows by more than 1e5 (to the
    nonlinear scale of the flip), at the transverse spectral radius per step while it is small."""
    n_steps = 20_000
    sp = state_spectrum(scheme, CUBOID, axis, RATE, dt)
    growth = _deviation_history(scheme, axis, dt, n_steps)
    if sp.verdict() == "stable":
        assert growth.max() < 10.0
    else:
        assert sp.verdict() == "unstable"
        assert growth.max() > 1e5
        # linear regime: from 1e2 to 1e5 times the perturbation
        window = np.flatnonzero((growth > 1e2) & (growth < 1e5))
        window = window[window < np.argmax(growth > 1e5)]
        slope = np.polyfit(10.0 * window, np.log(growth[window]), 1)[0]
        assert abs(slope / np.log(sp.transverse_radius) - 1.0) < 0.05
