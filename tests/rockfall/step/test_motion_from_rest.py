"""Motion from rest (``Soil.collision_froude``, tumble.rockfall.soil): closed forms of a box that
slides from rest with the base friction, of a rock that tips from rest over its edge, and of a
sphere-like rock that rolls (the rolling law of Azzoni et al. 1995); a soil without the field
keeps every number of the laws as they were."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain, simulate
from tumble.rockfall.soil_statics import holding_slippage, tipping_angle

G = 9.81
#: the friction law of Lu et al. 2019 (medium), without rolling resistance or scar layer
LU = {"mu_min": 0.55, "mu_max": 2.0, "kappa": 3.0, "beta": 185.0}


def slope_axes(slope_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Downhill unit vector and upward unit normal of :meth:`Terrain.plane`."""
    a = math.radians(slope_deg)
    return np.array([math.cos(a), 0.0, -math.sin(a)]), np.array([math.sin(a), 0.0, math.cos(a)])


def tilted(slope_deg: float) -> tuple[float, float, float, float]:
    """Rotation about y that sets body z along the normal of the plane."""
    half = 0.5 * math.radians(slope_deg)
    return (math.cos(half), 0.0, math.sin(half), 0.0)


def on_plane(terrain: Terrain, rock: Rock, slope_deg: float, x: float, turned: bool) -> np.ndarray:
    """The centre of ``rock`` with its lowest vertex 1e-7 m above the plane below ``(x, 0)``
    (body frame turned by :func:`tilted` if ``turned``, else the terrain's)."""
    _, normal = slope_axes(slope_deg)
    if turned:
        a = math.radians(slope_deg)
        turn = np.array(
            [[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0], [-math.sin(a), 0.0, math.cos(a)]]
        )
        vertices = rock.vertices @ turn.T
    else:
        vertices = rock.vertices
    low = -float((vertices @ normal).min())
    return np.array([x, 0.0, float(terrain.height(x, 0.0))]) + (low + 1e-7) * normal


def equivalent_radius(rock: Rock) -> float:
    """``sqrt(5 tr(Theta) / (6 m))``: the sphere of the rock's mean moment."""
    return math.sqrt(5.0 * float(np.sum(rock.inertia)) / (6.0 * rock.mass))


@pytest.mark.parametrize("scheme", ["implicit", "explicit"])
def test_a_box_at_rest_slides_with_the_base_friction_until_it_is_in_motion(scheme):
    """A flat box at rest on 40 degrees (tan 40 = 0.84 between mu_min 0.55 and mu_max 2): the
    published law holds it after the slippage s* (0.108 m); with collision_froude 1 it slides
    with the acceleration g (sin a - mu_min cos a) of Coulomb friction mu_min until v^2 = g R,
    and only then does its friction build up."""
    slope = 40.0
    a = math.radians(slope)
    terrain = Terrain.plane(slope, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 1.0, 0.5, density=2700.0)
    start = on_plane(terrain, rock, slope, 5.0, turned=True)
    downhill, _ = slope_axes(slope)
    s_star = holding_slippage(LU["mu_min"], LU["mu_max"], LU["kappa"], slope)
    assert 0.10 < s_star < 0.11

    held = simulate(terrain, rock, Soil(**LU), start, tilted(slope), scheme=scheme, t_max=10.0)
    assert held.status == "stopped"
    # it comes to rest soon after mu(s) reaches tan 40, within centimetres of s*
    assert np.linalg.norm(held.position[-1] - start) < 0.3

    free = simulate(
        terrain,
        rock,
        Soil(**LU, collision_froude=1.0),
        start,
        tilted(slope),
        scheme=scheme,
        t_max=10.0,
    )
    along = free.velocity @ downhill
    speed_limit = math.sqrt(G * equivalent_radius(rock))
    speed = np.linalg.norm(free.velocity, axis=1)
    first_fast = int(np.argmax(speed >= 0.9 * speed_limit))
    slow = (free.t > 0.05) & (np.arange(len(free.t)) < first_fast)
    t, v = free.t[slow], along[slow]
    acceleration = (v[-1] - v[0]) / (t[-1] - t[0])
    expected = G * (math.sin(a) - LU["mu_min"] * math.cos(a))
    assert acceleration == pytest.approx(expected, rel=1e-6)
    assert np.all(free.slippage[slow] == 0.0)
    # then in motion: the friction builds up and holds it (mu_max = 2 > tan 40)
    assert free.status == "stopped" and free.slippage[-1] > s_star
    assert np.max(np.linalg.norm(free.velocity, axis=1)) >= speed_limit
    # it slid (v_F^2 / 2 a) before the friction built up: beyond 1 m
    assert np.linalg.norm(free.position[-1] - start) > speed_limit**2 / (2.0 * expected)


@pytest.mark.parametrize("scheme", ["implicit", "explicit"])
def test_rolling_resistance_does_not_hold_a_rock_that_tips_from_rest(scheme):
    """EOTA221 on its large face, an edge across a 47 degree slope, friction that never lets it
    slide (Coulomb 2): it tips from 45 degrees by its shape alone and from 49.6 degrees with the
    rolling resistance mu_r 0.1 acting on it at rest (tipping_angle). With collision_froude 1
    the resistance waits until the rock is in motion, and the rock tips over."""
    slope = 47.0
    size = 0.93
    rock = Rock.eota221(size=size, density=2700.0)
    assert tipping_angle(size / 4, size / 4) == pytest.approx(45.0)
    assert tipping_angle(size / 4, size / 4, 0.1, math.sqrt(3.0) * size / 4) > 49.0
    terrain = Terrain.plane(slope, size=(80.0, 20.0), spacing=1.0)
    start = on_plane(terrain, rock, slope, 5.0, turned=True)
    soil = {"mu_min": 2.0, "mu_max": 2.0, "kappa": 0.0, "beta": 0.0, "rolling_resistance": 0.1}

    held = simulate(terrain, rock, Soil(**soil), start, tilted(slope), scheme=scheme, t_max=5.0)
    assert held.status == "stopped"
    assert np.linalg.norm(held.position[-1] - start) < 0.01

    tips = simulate(
        terrain,
        rock,
        Soil(**soil, collision_froude=1.0),
        start,
        tilted(slope),
        scheme=scheme,
        t_max=5.0,
    )
    assert np.linalg.norm(tips.position[-1] - start) > 1.0


@pytest.mark.parametrize(("slope", "mu_r"), [(5.0, 0.2), (10.0, 0.3), (20.0, 0.3)])
def test_a_sphere_like_rock_rolls_by_the_azzoni_law(slope, mu_r, sphere_like_rock):
    """A polyhedron of 400 vertices on a sphere of 0.5 m set rolling at 1 m/s down a plane: with
    model A's rolling resistance it decelerates iff tan(slope) < mu_r, and stops after the
    distance of the rolling law of Azzoni et al. 1995, v0^2 / (2 A g cos a (mu_r - tan a)),
    A = m / (m + I / R^2) (within 10 %: the facets' landings take a little more)."""
    radius, v0 = 0.5, 1.0
    a = math.radians(slope)
    rock = sphere_like_rock
    terrain = Terrain.plane(slope, size=(200.0, 20.0), spacing=1.0)
    downhill, normal = slope_axes(slope)
    start = on_plane(terrain, rock, slope, 20.0, turned=False)
    soil = Soil(mu_min=1.0, mu_max=1.0, kappa=0.0, beta=0.0, rolling_resistance=mu_r)
    omega = np.cross(normal, v0 * downhill) / radius
    traj = simulate(terrain, rock, soil, start, velocity=v0 * downhill, omega=omega, t_max=30.0)
    if math.tan(a) >= mu_r:
        assert traj.status in ("left_domain", "timed_out")
        assert np.linalg.norm(traj.velocity[-1]) > 3.0 * v0
        return
    share = rock.mass / (rock.mass + float(np.mean(rock.inertia)) / radius**2)
    expected = v0**2 / (2.0 * share * G * math.cos(a) * (mu_r - math.tan(a)))
    travelled = float(np.linalg.norm(traj.position[-1] - start))
    assert traj.status == "stopped"
    assert travelled == pytest.approx(expected, rel=0.1)
