"""The scar layer of Lu et al. 2019 (tumble.rockfall.step.scar): the depth formula, the immersed
cross-section, a box dropped on flat soil that ploughs exactly to the scar's floor, the
discrete energy balance with the ploughing drag, and the off switch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain, simulate
from tumble.rockfall.soil import LU_SCAR_CS, LU_SCAR_STRENGTH, PRESETS
from tumble.rockfall.step.scar import SCAR_DENSITY, immersed_area, scar_depth, scar_drag
from tumble.rotation.quaternion import quat_exp, quat_rotate

SCHEMES = ("explicit", "implicit")
G = 9.81
DT = 0.002


def test_scar_depth_is_the_formula_of_lu_2019():
    """d_max = 0.1 M^(1/3) Me^(-0.4) |V_perp|^0.8, worked by hand for M = 1000 kg, Me = 15 MN/m^2,
    V = 10 m/s: 0.1 x 10 x 0.021365 x 6.3096 = 0.1348 m; nothing for a rock moving away."""
    expected = 0.1 * 10.0 * 15000.0**-0.4 * 10.0**0.8
    assert abs(expected - 0.1348) < 1e-4
    assert scar_depth(1000.0, 15000.0, 10.0) == pytest.approx(expected, rel=1e-12)
    # weaker soil, deeper scar: d ~ Me^-0.4
    ratio = scar_depth(1000.0, 1500.0, 10.0) / scar_depth(1000.0, 15000.0, 10.0)
    assert ratio == pytest.approx(10.0**0.4, rel=1e-12)
    assert scar_depth(1000.0, 15000.0, 0.0) == 0.0
    assert scar_depth(1000.0, 15000.0, -3.0) == 0.0
    assert scar_depth(1000.0, 0.0, 10.0) == 0.0


def test_immersed_area_is_the_circular_segment():
    """Half the circle at d = R, all of it from d = 2R, and (4/3) sqrt(2R) d^(3/2) for a shallow
    segment (the parabolic limit, within 0.1 % at d = 1e-4 R)."""
    r = 0.6
    assert immersed_area(r, 0.0) == 0.0
    assert immersed_area(r, r) == pytest.approx(0.5 * math.pi * r * r, rel=1e-14)
    assert immersed_area(r, 2.0 * r) == pytest.approx(math.pi * r * r, rel=1e-14)
    assert immersed_area(r, 3.0 * r) == pytest.approx(math.pi * r * r, rel=1e-14)
    d = 1e-4 * r
    assert immersed_area(r, d) == pytest.approx(4.0 / 3.0 * math.sqrt(2.0 * r) * d**1.5, rel=1e-3)
    # the drag coefficient: the base disc across the surface, the segment along it
    d, cs, v = 0.1, 1.5, 12.0
    scale = 0.5 * (1.0 + cs) * 1700.0 * v
    disc = math.pi * d * (2.0 * r - d)
    assert scar_drag(r, d, 0.3, cs, v, 1.0) == pytest.approx(scale * disc, rel=1e-14)
    assert scar_drag(r, 0.3, d, cs, v, 0.0) == pytest.approx(scale * immersed_area(r, d), rel=1e-14)
    half = math.sqrt(0.5)
    both = scale * half * (disc + immersed_area(r, d))
    assert scar_drag(r, d, d, cs, v, half) == pytest.approx(both, rel=1e-14)
    assert scar_drag(r, 0.0, d, cs, v, 1.0) == 0.0
    depths = np.linspace(0.0, 2.0 * r, 50)
    areas = [immersed_area(r, x) for x in depths]
    assert np.all(np.diff(areas) > 0.0)


def scar_soil(**fields: float) -> Soil:
    return Soil.coulomb(
        0.8, scar_strength=fields.get("strength", LU_SCAR_STRENGTH), scar_cs=LU_SCAR_CS
    )


def lowest_vertex(rock: Rock, position: np.ndarray, orientation: np.ndarray) -> float:
    return float(min(position[2] + quat_rotate(orientation, v)[2] for v in rock.vertices))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_dropped_box_ploughs_to_the_floor_of_its_scar(scheme):
    """A 1 m cube (2700 kg) dropped flat from 3 m on flat soil: the scar's depth follows from
    its speed at the first touch (the velocity at the start of that step), the box sinks into
    the soil against the drag until its face reaches that depth (within one step of its speed
    there) and rests on the scar's floor; the drag acts only while it ploughs, before the floor
    carries it, and takes energy (more than the same drop on hard ground loses to nothing but
    the plastic impact, the same kinetic energy in both)."""
    terrain = Terrain.plane(0.0, size=(20.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 1.0, 1.0, density=2700.0)
    drop = 3.0
    traj = simulate(terrain, rock, scar_soil(), (10.0, 0.0, 0.5 + drop), scheme=scheme, t_max=5.0)
    assert traj.status == "stopped"
    first = int(np.argmax(traj.n_contacts > 0))
    v_perp = -traj.velocity[first - 1, 2]
    assert v_perp == pytest.approx(math.sqrt(2.0 * G * drop), rel=0.01)
    depth = scar_depth(rock.mass, LU_SCAR_STRENGTH, v_perp)
    assert 0.1 < depth < 0.2
    floor = int(np.argmax(traj.n_loaded > 0))
    assert floor > first + 5  # it ploughs for several steps before the floor carries it
    sinking = -traj.velocity[floor - 1, 2]
    final = lowest_vertex(rock, traj.position[-1], traj.orientation[-1])
    assert -depth - sinking * DT - 1e-9 <= final <= -depth + 1e-9
    ploughing = np.flatnonzero(traj.drag_work != 0.0)
    assert ploughing.size > 0
    assert ploughing.min() >= first and ploughing.max() <= floor
    # the first ploughing step by hand: the face (all four lower vertices) immersed to
    # d = -(z_M - 0.5) at the midpoint, a vertical motion (A: the base disc of the equivalent
    # sphere's cap, pi d (2R - d)), c = 1/2 (1 + C_s) rho A |v_B| taken linearly implicit, no
    # hard contact yet: v_E = ((m - h c) v_B - m g dt) / (m + h c), drag work -dt c |v_M|^2
    radius = math.sqrt(5.0 * float(np.sum(rock.inertia)) / (6.0 * rock.mass))
    v_b = traj.velocity[first - 1, 2]
    z_mid = traj.position[first - 1, 2] + 0.5 * DT * v_b
    d = -(z_mid - 0.5)
    assert 0.0 < d < depth
    c = 0.5 * (1.0 + LU_SCAR_CS) * SCAR_DENSITY * math.pi * d * (2.0 * radius - d) * abs(v_b)
    m = rock.mass
    v_e = ((m - 0.5 * DT * c) * v_b - m * G * DT) / (m + 0.5 * DT * c)
    assert traj.velocity[first, 2] == pytest.approx(v_e, rel=1e-12)
    assert traj.drag_work[first] == pytest.approx(-DT * c * (0.5 * (v_b + v_e)) ** 2, rel=1e-9)
    assert traj.drag_work.sum() < traj.drag_work[first] < 0.0


@pytest.mark.parametrize("scheme", SCHEMES)
def test_energy_balance_per_step_with_the_scar(scheme):
    """L14 eq. 54 with the ploughing drag: T + V changes by the contact plus drag work of every
    step, to round-off, for a tumbling EOTA221 bouncing down a 40 degree slope of soil."""
    terrain = Terrain.plane(40.0, size=(200.0, 60.0), spacing=2.0)
    rock = Rock.eota221(mass=780.0)
    soil = Soil(**{**PRESETS["medium"]})
    traj = simulate(
        terrain,
        rock,
        soil,
        (20.0, 0.0, float(terrain.height(20.0, 0.0)) + 1.5),
        quat_exp(np.array([0.3, -0.7, 0.4])),
        (5.0, 1.0, 0.0),
        (1.0, -2.0, 3.0),
        scheme=scheme,
        t_max=6.0,
    )
    assert traj.in_contact.sum() > 50
    assert traj.drag_work.min() < -10.0
    energy = traj.kinetic_energy() + traj.potential_energy()
    residual = np.diff(energy) - traj.contact_work[1:] - traj.drag_work[1:]
    assert np.abs(residual).max() < 1e-12 * np.abs(energy).max()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_without_strength_the_scar_layer_is_off(scheme):
    """scar_strength 0 (every soil but medium and authume_vegetated) leaves every step
    bit-identical, whatever scar_cs says; with it the same drop ends lower (on the scar's
    floor)."""
    terrain = Terrain.plane(30.0, size=(80.0, 30.0), spacing=1.0)
    rock = Rock.eota221(mass=780.0)
    start = (10.0, 0.0, float(terrain.height(10.0, 0.0)) + 2.0)
    args = (quat_exp(np.array([0.2, 0.5, -0.1])), (3.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    base = {"mu_min": 0.55, "mu_max": 2.0, "kappa": 3.0, "beta": 185.0}
    plain = simulate(terrain, rock, Soil(**base), start, *args, scheme=scheme, t_max=3.0)
    off = simulate(terrain, rock, Soil(**base, scar_cs=1.5), start, *args, scheme=scheme, t_max=3.0)
    assert np.array_equal(plain.position, off.position)
    assert np.array_equal(plain.omega, off.omega)
    on = simulate(
        terrain,
        rock,
        Soil(**base, scar_strength=LU_SCAR_STRENGTH, scar_cs=1.5),
        start,
        *args,
        scheme=scheme,
        t_max=3.0,
    )
    assert not np.array_equal(plain.position, on.position)
