"""Every free-rotation scheme through the common driver: exact invariants, fitted orders,
the seed's Fig. 2 regression and input validation."""

import numpy as np
import pytest

from tumble.freerot import SCHEMES, STEPPERS, exact, get_scheme, integrate
from tumble.rotation import quat_to_matrix

CUBOID = (5 / 12, 10 / 12, 13 / 12)  # Leine et al. 2021, section 4.3: 1 kg, 3 x 2 x 1 m
BETSCH = (6.0, 8.0, 3.0)  # Betsch & Siebert 2009, section 5.1
BETSCH_OMEGA0 = (10.0, 20.0, 20.0)
STEPPING = tuple(STEPPERS)


def test_scheme_table():
    assert SCHEMES == (
        "explicit",
        "implicit",
        "quat_em",
        "quat_vi",
        "dir_em",
        "algo_c1",
        "rk4",
        "exact",
    )
    for name in STEPPING:
        scheme = get_scheme(name)
        assert scheme.name == name
        assert scheme.order in (1, 2, 4)
        assert "unit_quaternion" in scheme.preserves


@pytest.mark.parametrize("omega0", [(1e-3, 1e-3, 10.0), (1.0, 2.0, 3.0)])
@pytest.mark.parametrize("name", STEPPING)
def test_exact_invariants_over_2000_steps(name, omega0):
    """What each paper promises, to 1e-12 relative over 2000 steps of dt = 0.01 on the cuboid."""
    traj = integrate(name, CUBOID, omega0, dt=0.01, t_end=20.0)
    assert len(traj) == 2001
    kept = get_scheme(name).preserves
    drift = {
        "unit_quaternion": np.abs(traj.quaternion_norm() - 1.0).max(),
        "energy": np.abs(traj.energy() / traj.energy()[0] - 1.0).max(),
        "spin_norm": np.abs(
            np.linalg.norm(traj.spin(), axis=1) / np.linalg.norm(traj.spin()[0]) - 1
        ).max(),
        "spin": np.linalg.norm(traj.spin() - traj.spin()[0], axis=1).max()
        / np.linalg.norm(traj.spin()[0]),
    }
    for invariant, value in drift.items():
        if invariant in kept:
            assert value < 1e-12, f"{name} drifts in {invariant}: {value:.3e}"


def test_explicit_scheme_does_not_keep_the_spin():
    """The explicit scheme conserves energy only; its spin vector wanders (Leine 2021, Fig. 3)."""
    traj = integrate("explicit", CUBOID, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
    spin = traj.spin()
    assert np.linalg.norm(spin[-1] - spin[0]) / np.linalg.norm(spin[0]) > 0.1


def attitude_error(traj, ref):
    """e = || R_ref R^T - I ||_F at the last sample (Betsch & Siebert 2009, section 5.1)."""
    r = quat_to_matrix(traj.q[-1])
    r_ref = quat_to_matrix(ref.q[-1])
    return np.linalg.norm(r_ref @ r.T - np.eye(3))


EXPECTED_ORDER = {"explicit": 1, "rk4": 4}


@pytest.mark.parametrize("name", STEPPING)
def test_fitted_convergence_order(name):
    """Log-log slope of the attitude error at T = 1 against the exact solution."""
    # The explicit scheme is first order with a large error constant on this body (about 8e4 dt
    # in omega), so its asymptotic range starts near dt = 1e-5.
    steps = {"rk4": [50, 100, 200, 400], "explicit": [25600, 51200, 102400, 204800]}.get(
        name, [200, 400, 800, 1600]
    )
    steps = np.array(steps)
    ref = exact(BETSCH, BETSCH_OMEGA0, (1, 0, 0, 0), np.array([0.0, 1.0]))
    errors = [
        attitude_error(
            integrate(name, BETSCH, BETSCH_OMEGA0, dt=1.0 / n, t_end=1.0, save_every=int(n)), ref
        )
        for n in steps
    ]
    slope = np.polyfit(np.log(1.0 / steps), np.log(errors), 1)[0]
    expected = EXPECTED_ORDER.get(name, 2)
    assert abs(slope - expected) < 0.3, f"{name}: fitted order {slope:.2f}, errors {errors}"


def test_leine_fig2_regression():
    """Seed 000, Fig. 2: the explicit scheme leaves the major axis near t = 9-10 s and ends
    spinning about the minor axis at -sqrt(C/A) * 10 rad/s; the implicit one stays."""
    a, _, c = CUBOID
    explicit = integrate("explicit", CUBOID, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
    leave = explicit.t[np.argmax(explicit.omega[:, 2] < 5.0)]
    assert 8.0 <= leave <= 11.0
    assert explicit.omega[-1, 0] == pytest.approx(-np.sqrt(c / a) * 10.0, abs=0.01)
    assert -np.sqrt(c / a) * 10.0 == pytest.approx(-16.12, abs=0.005)
    implicit = integrate("implicit", CUBOID, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
    assert np.abs(implicit.omega - [0.0, 0.0, 10.0]).max() < 2e-3


def test_save_every_and_times():
    full = integrate("implicit", CUBOID, (1.0, 2.0, 3.0), dt=0.01, t_end=1.0)
    sparse = integrate("implicit", CUBOID, (1.0, 2.0, 3.0), dt=0.01, t_end=1.0, save_every=10)
    np.testing.assert_array_equal(sparse.omega, full.omega[::10])
    np.testing.assert_allclose(sparse.t, np.arange(11) * 0.1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"inertia": (1.0, -2.0, 3.0)}, "positive"),
        ({"inertia": (1.0, 1.0, 3.0)}, "triangle inequality"),
        ({"inertia": (1.0, 2.0)}, "three principal moments"),
        ({"omega0": (np.nan, 0.0, 1.0)}, "NaN"),
        ({"q0": (1.0, 0.1, 0.0, 0.0)}, "unit quaternion"),
        ({"dt": 0.0}, "dt must be a positive"),
        ({"dt": -0.01}, "dt must be a positive"),
        ({"scheme": "verlet"}, "unknown scheme 'verlet'"),
        ({"save_every": 0}, "save_every"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(kwargs, message):
    args = {
        "scheme": "implicit",
        "inertia": CUBOID,
        "omega0": (1.0, 2.0, 3.0),
        "dt": 0.01,
        "t_end": 0.1,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        integrate(**args)
