"""Every free-rotation scheme through the common driver: exact invariants, fitted orders,
the seed's Fig. 2 regression and input validation."""

import numpy as np
import pytest

from tumble.errors import ConfigError
from tumble.freerot import SCHEMES, STEPPERS, exact, get_scheme, integrate, step
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


@pytest.mark.parametrize("name", SCHEMES)
def test_a_run_ends_at_t_end_with_a_last_short_step(name):
    """dt = 2 s, t_end = 1 s ran to t = 2 s (ceil of the steps); now the run is one step of
    1 s. With dt = 0.1 s and t_end = 0.25 s: two steps of 0.1 s and one of 0.05 s, the last
    state that of those steps taken one by one (the short step is a true step of the scheme),
    and the last sample at exactly t_end."""
    one = integrate(name, CUBOID, (0.1, 0.2, 0.3), dt=2.0, t_end=1.0)
    np.testing.assert_array_equal(one.t, [0.0, 1.0])
    traj = integrate(name, CUBOID, (1.0, 2.0, 3.0), dt=0.1, t_end=0.25)
    np.testing.assert_array_equal(traj.t, [0.0, 0.1, 0.2, 0.25])
    ref = exact(CUBOID, (1.0, 2.0, 3.0), (1, 0, 0, 0), traj.t)
    if name == "exact":
        np.testing.assert_array_equal(traj.omega, ref.omega)
        return
    state = traj.state[0]
    for h in (0.1, 0.1, 0.25 - 2 * 0.1):  # the short step is what is left of t_end
        state = step(name, CUBOID, state, h)
    np.testing.assert_array_equal(traj.state[-1], state)
    # the last sample is the motion at t_end: for every scheme of order 2 and more it is nearer
    # the exact omega(0.25 s) than omega(0.3 s), where three whole steps would have ended, is
    # (0.2 rad/s away; measured 0.0022 implicit to 0.029 quat_vi, 8.9e-6 rk4)
    if name != "explicit":
        gap = np.abs(exact(CUBOID, (1.0, 2.0, 3.0), (1, 0, 0, 0), [0.3]).omega[0] - ref.omega[-1])
        assert np.abs(traj.omega[-1] - ref.omega[-1]).max() < 0.2 * gap.max()


def test_whole_numbers_of_steps_up_to_round_off_take_no_short_step():
    """20 / 0.01 = 2000.0000000000002 and 0.3 / 0.1 = 2.9999999999999996 are whole numbers."""
    assert len(integrate("implicit", CUBOID, (1.0, 2.0, 3.0), dt=0.01, t_end=20.0)) == 2001
    traj = integrate("implicit", CUBOID, (1.0, 2.0, 3.0), dt=0.1, t_end=0.3, last_step="refuse")
    assert len(traj) == 4 and traj.t[-1] == pytest.approx(0.3, rel=1e-15)


def test_the_last_state_is_saved_whatever_save_every():
    """Ten steps saved every fourth: samples at steps 0, 4, 8 and the last, 10."""
    traj = integrate("rk4", CUBOID, (1.0, 2.0, 3.0), dt=0.1, t_end=1.0, save_every=4)
    np.testing.assert_allclose(traj.t, [0.0, 0.4, 0.8, 1.0], rtol=1e-15)
    full = integrate("rk4", CUBOID, (1.0, 2.0, 3.0), dt=0.1, t_end=1.0)
    np.testing.assert_array_equal(traj.omega, full.omega[[0, 4, 8, 10]])
    ends = integrate("exact", CUBOID, (1.0, 2.0, 3.0), dt=0.1, t_end=1.0, save_every=4)
    np.testing.assert_allclose(ends.t, traj.t, rtol=1e-15)


def test_a_t_end_off_the_steps_is_refused_when_asked():
    with pytest.raises(ConfigError, match="not a whole number of steps") as info:
        integrate("implicit", CUBOID, (1.0, 2.0, 3.0), dt=2.0, t_end=1.0, last_step="refuse")
    assert info.value.key == "t_end" and "0.5 steps" in str(info.value)
    with pytest.raises(ConfigError, match="last_step"):
        integrate("implicit", CUBOID, (1.0, 2.0, 3.0), dt=0.1, t_end=1.0, last_step="long")


@pytest.mark.parametrize("name", ["implicit", "exact"])
def test_absurd_step_counts_are_refused_before_any_memory_is_taken(name):
    """1e-12 s steps for 1000 s (1e15 steps; the samples would need 56 PB) and 1e-7 s steps for
    100 s (1e9 steps: allowed, but saving each needs 56 GB) are refused, saying what to change."""
    with pytest.raises(ConfigError, match="raise dt or shorten t_end") as info:
        integrate(name, CUBOID, (1.0, 2.0, 3.0), dt=1e-12, t_end=1000.0)
    assert info.value.key == "dt" and "1e+15 steps" in str(info.value)
    with pytest.raises(ConfigError, match="use save_every >= 14,") as info:
        integrate(name, CUBOID, (1.0, 2.0, 3.0), dt=1e-7, t_end=100.0)
    assert info.value.key == "save_every"
