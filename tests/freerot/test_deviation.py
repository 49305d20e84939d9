"""What a scheme gets wrong against the exact motion (``tumble.freerot.deviation``): nothing for
the exact solution, the spin of the minor axis for the explicit scheme near the major axis
(Leine et al. 2021, section 4.3), only the phase for an energy-momentum scheme."""

import math

import numpy as np
import pytest

from tumble.freerot import integrate
from tumble.freerot.deviation import deviation_from_exact, rotation_angle
from tumble.rotation import quat_exp

CUBOID = (5 / 12, 10 / 12, 13 / 12)  # 3 x 2 x 1 m, 1 kg


def test_the_exact_solution_has_no_deviation():
    dev = deviation_from_exact(integrate("exact", CUBOID, (0.1, 10.0, 0.1), dt=0.01, t_end=5.0))
    assert dev.t_end == 5.0
    assert max(dev.energy_drift, dev.spin_norm_drift) < 1e-14
    assert dev.spin_turn_deg < 1e-12 and dev.attitude_error_deg < 1e-12
    assert dev.omega_error < 1e-12


def test_the_explicit_scheme_loses_the_spin_of_the_major_axis():
    """It ends spinning about the minor axis with the energy kept: |L| drops from C Omega to
    sqrt(A C) Omega, by 1 - sqrt(A / C) = 38 %."""
    traj = integrate("explicit", CUBOID, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
    dev = deviation_from_exact(traj)
    a, _, c = CUBOID
    assert dev.spin_norm_drift == pytest.approx(1.0 - math.sqrt(a / c), rel=1e-3)
    assert dev.energy_drift < 1e-12
    assert dev.omega_error > 15.0  # 16.12 rad/s about x instead of 10 rad/s about z
    assert dev.attitude_error_deg > 90.0
    # the body never flips; the scheme flips twice, crossing over to the minor axis near 9 s
    assert (dev.flips, dev.exact_flips) == (2, 0)
    near = integrate("explicit", CUBOID, (0.1, 10.0, 0.1), dt=0.01, t_end=20.0)
    dev = deviation_from_exact(near)
    assert (dev.flips, dev.exact_flips) == (2, 8)  # near the intermediate axis it stops flipping


def test_an_energy_momentum_scheme_errs_only_in_phase():
    traj = integrate("implicit", CUBOID, (0.1, 10.0, 0.1), dt=0.01, t_end=20.0)
    dev = deviation_from_exact(traj)
    assert max(dev.energy_drift, dev.spin_norm_drift) < 1e-13
    assert dev.spin_turn_deg < 1e-10
    assert 0.01 < dev.attitude_error_deg < 10.0  # the phase error of a second-order scheme


def test_rotation_angle_of_known_rotations():
    angles = np.array([0.0, 0.3, 2.0, math.pi])
    q = quat_exp(np.outer(angles, [0.0, 0.6, 0.8]))
    np.testing.assert_allclose(
        rotation_angle(q, np.tile([1.0, 0, 0, 0], (4, 1))), angles, atol=1e-15
    )
    np.testing.assert_allclose(
        rotation_angle(-q, np.tile([1.0, 0, 0, 0], (4, 1))), angles, atol=1e-15
    )


def test_a_heavy_top_is_refused():
    traj = integrate(
        "dir_em", CUBOID, (0.0, 0.0, 5.0), dt=0.01, t_end=0.1, potential=(9.81, 0.0, 0.0, 0.1)
    )
    with pytest.raises(ValueError, match="torque-free"):
        deviation_from_exact(traj)
