"""One rock through :func:`tumble.rockfall.simulate`: determinism (bit-identical reruns, the same
states whatever ``save_every``), input validation, soil rasters. The physics of the step on
cases with known answers (free flight, impacts, sliding, the examples of Leine et al. 2014, the
energy balance) is tested beside the step, in ``step/test_moreau.py``; rocks from files in
``test_rock.py``."""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain, simulate
from tumble.rotation.quaternion import quat_exp

SCHEMES = ("explicit", "implicit")


def tilted(angle_rad: float) -> tuple[float, float, float, float]:
    """Quaternion of a rotation about y: body z along the normal of a plane descending along +x."""
    return (math.cos(0.5 * angle_rad), 0.0, math.sin(0.5 * angle_rad), 0.0)


def slope_axes(slope_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Downhill unit vector and upward unit normal of :meth:`Terrain.plane`."""
    a = math.radians(slope_deg)
    return np.array([math.cos(a), 0.0, -math.sin(a)]), np.array([math.sin(a), 0.0, math.cos(a)])


def resting_on(terrain, slope_deg: float, x: float, half_height: float) -> np.ndarray:
    """Centre of a block whose bottom face lies on the plane below (x, 0)."""
    _, normal = slope_axes(slope_deg)
    return np.array([x, 0.0, float(terrain.height(x, 0.0))]) + half_height * normal


def test_bit_identical_reruns():
    terrain = Terrain.plane(40.0, size=(200.0, 60.0), spacing=2.0)
    rock = Rock.eota221(mass=780.0)
    soil = Soil.preset("medium", restitution=0.2)
    start = (20.0, 0.0, float(terrain.height(20.0, 0.0)) + 1.0)
    q0 = quat_exp(np.array([1.0, 0.2, -0.5]))
    for scheme in SCHEMES:
        runs = [
            simulate(terrain, rock, soil, start, q0, scheme=scheme, t_max=5.0, save_every=every)
            for every in (1, 1, 7)
        ]
        first, again, sparse = runs
        for name in ("t", "position", "orientation", "velocity", "omega", "slippage", "mu"):
            assert np.array_equal(getattr(first, name), getattr(again, name)), name
        assert np.array_equal(first.position[-1], sparse.position[-1])
        assert np.array_equal(first.orientation[::7], sparse.orientation[: len(first.t[::7])])


def test_bad_inputs_fail_clearly():
    terrain = Terrain.plane(0.0, size=(20.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 1.0, 1.0)
    soil = Soil.coulomb(0.5)
    with pytest.raises(ValueError, match="below the terrain"):
        simulate(terrain, rock, soil, (10.0, 0.0, 0.3))
    with pytest.raises(ValueError, match="outside the DEM"):
        simulate(terrain, rock, soil, (19.8, 0.0, 2.0))
    with pytest.raises(ValueError, match="unit quaternion"):
        simulate(terrain, rock, soil, (10.0, 0.0, 2.0), orientation=(2.0, 0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="NaN"):
        simulate(terrain, rock, soil, (10.0, float("nan"), 2.0))
    with pytest.raises(ValueError, match="NaN"):
        simulate(terrain, rock, soil, (10.0, 0.0, 2.0), omega=(0.0, float("inf"), 0.0))
    with pytest.raises(ValueError, match="unknown scheme"):
        simulate(terrain, rock, soil, (10.0, 0.0, 2.0), scheme="rk4")
    with pytest.raises(ValueError, match="dt"):
        simulate(terrain, rock, soil, (10.0, 0.0, 2.0), dt=0.0)
    with pytest.raises(ValueError, match="mu_max"):
        Soil(mu_min=0.8, mu_max=0.5, kappa=1.0, beta=1.0)
    with pytest.raises(ValueError, match="restitution"):
        Soil.coulomb(0.5, restitution=1.5)
    # a nearly unit quaternion is normalised
    traj = simulate(terrain, rock, soil, (10.0, 0.0, 2.0), (1.0005, 0.0, 0.0, 0.0), t_max=0.01)
    assert np.linalg.norm(traj.orientation[0]) == pytest.approx(1.0, abs=1e-15)


def test_a_soil_raster_equal_to_a_constant_gives_the_constants_run():
    """A friction raster equal to 0.3 everywhere gives the run of the constant 0.3 (the bilinear
    value of a constant raster is the constant), to 1e-9 m."""
    terrain = Terrain.plane(30.0, size=(40.0, 20.0), spacing=2.0)
    start = resting_on(terrain, 30.0, 10.0, 0.5)
    plain = simulate(terrain, Rock.box(1, 1, 1), Soil.coulomb(0.3), start, tilted(math.pi / 6))
    raster = Soil.coulomb(np.full(terrain.shape, 0.3))
    mapped = simulate(terrain, Rock.box(1, 1, 1), raster, start, tilted(math.pi / 6))
    assert plain.status == mapped.status == "left_domain"
    np.testing.assert_allclose(mapped.position, plain.position, rtol=0, atol=1e-9)


def test_the_fall_from_the_release_is_not_a_jump():
    """A 1 m cube released face down with its centre 10 m above flat ground: the fall is the
    release drop (10 m, the release row), not a jump. On a plastic soil (restitution 0) it
    does not leave the ground again: no jump at all. With restitution 0.5 it bounces once to
    the analytic apex ``a + (eps v)^2 / 2g``, ``v = sqrt(2 g (10 - a))``, ``a = 0.5 m`` the
    centre's height at rest, within one step's travel at impact (v dt: where the contact
    closes in the step). Saving every 7th step changes neither."""
    terrain = Terrain.plane(0.0, size=(20.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 1.0, 1.0, mass=2000.0)
    g, a, dt = 9.81, 0.5, 0.002
    v = math.sqrt(2.0 * g * (10.0 - a))
    for every in (1, 7):
        plastic = simulate(
            terrain, rock, Soil.coulomb(0.5), (10.0, 0.0, 10.0), t_max=4.0, save_every=every
        )
        assert plastic.status == "stopped"
        assert np.isnan(plastic.jump_height()).all()
        assert plastic.release_drop() == 10.0
        # it fell 9.5 m before the first contact: its height then counted as no jump
        assert not plastic.touched[0] and plastic.touched[-1]
        bouncy = simulate(
            terrain,
            rock,
            Soil.coulomb(0.5, restitution=0.5),
            (10.0, 0.0, 10.0),
            t_max=4.0,
            save_every=every,
        )
        apex = a + (0.5 * v) ** 2 / (2.0 * g)
        assert np.nanmax(bouncy.jump_height()) == pytest.approx(apex, abs=v * dt)
        assert bouncy.release_drop() == 10.0
        # the heights of the fall, down to the first contact, are none of the jumps
        before = ~bouncy.touched
        assert before.sum() > 1 and np.all(np.isnan(bouncy.jump_height()[before]))
