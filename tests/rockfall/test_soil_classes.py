"""The terrain classes of STONE and Rockyfor3D (tumble.rockfall.soil_classes): their values are
the published ones, and the translation holds in tumble's dynamics: a sphere-like rock rolling
on a class decelerates exactly where STONE's block does (tan(slope) < tan(beta)), with the stop
distance of the rolling law of Azzoni et al. 1995, and rebounds from a drop test with the
class's normal restitution."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall import Soil, Terrain, simulate
from tumble.rockfall.soil import CATALOGUE, PRESETS
from tumble.rockfall.soil_classes import (
    CLASS_FRICTION,
    ROCKYFOR3D_TYPES,
    STONE_CLASSES,
    STONE_SPREAD,
)

G = 9.81

#: the rolling friction coefficient tan(beta) and normal restitution (%) of Alvioli et al. 2021
#: as the r.stone manual prints them, one row per class tumble groups
PUBLISHED_STONE = {
    "stone_deposits": (0.80, 15),
    "stone_debris": (0.65, 35),
    "stone_clastic": (0.40, 55),
    "stone_loose": (0.35, 45),
    "stone_schist": (0.35, 60),
    "stone_bedrock": (0.30, 65),
    "stone_lake_glacier": (0.95, 10),
}
#: the normal restitution ranges of the Rockyfor3D soil types (Dorren et al. 2023)
PUBLISHED_ROCKYFOR3D = {
    "rf3d_1_fine_soil": (0.21, 0.25),
    "rf3d_2_shallow_soil": (0.30, 0.36),
    "rf3d_3_scree": (0.34, 0.42),
    "rf3d_4_talus": (0.39, 0.47),
    "rf3d_6_bedrock": (0.48, 0.58),
    "rf3d_7_asphalt": (0.32, 0.39),
}


def test_the_stone_classes_carry_the_published_coefficients():
    assert set(STONE_CLASSES) == set(PUBLISHED_STONE)
    for name, (tan_beta, percent) in PUBLISHED_STONE.items():
        preset = CATALOGUE[name]
        assert preset.values["rolling_resistance"] == tan_beta
        assert preset.values["restitution"] == pytest.approx(percent / 100.0, abs=1e-12)
        for field in ("restitution", "rolling_resistance"):
            low, high = preset.spread[field]
            value = preset.values[field]
            assert low == pytest.approx(value * (1.0 - STONE_SPREAD))
            assert high == pytest.approx(value * (1.0 + STONE_SPREAD))
        assert "Guzzetti" in preset.source and "Alvioli" in preset.source


def test_the_rockyfor3d_types_carry_the_published_ranges():
    assert set(ROCKYFOR3D_TYPES) == set(PUBLISHED_ROCKYFOR3D)
    for name, (low, high) in PUBLISHED_ROCKYFOR3D.items():
        preset = CATALOGUE[name]
        assert preset.spread["restitution"] == (low, high)
        assert preset.values["restitution"] == pytest.approx(0.5 * (low + high), abs=1e-12)
        assert preset.values.get("rolling_resistance", 0.0) == 0.0


def test_every_class_has_the_published_friction_and_motion_from_rest():
    for name in (*PUBLISHED_STONE, *PUBLISHED_ROCKYFOR3D):
        values = PRESETS[name]
        for field, value in CLASS_FRICTION.items():
            assert values[field] == value
        assert values["collision_froude"] == 1.0


@pytest.mark.parametrize("name", ["stone_bedrock", "stone_clastic", "stone_debris"])
@pytest.mark.parametrize("offset", [-4.0, 4.0])
def test_a_rolling_rock_decelerates_where_the_class_rolling_angle_says(
    name, offset, sphere_like_rock
):
    """A sphere of 400 vertices (0.5 m) rolling at 2.3 m/s (in motion: v^2 > g R) on a plane 4
    degrees below the class's rolling friction angle beta slows to 5 % of its speed; 4 degrees
    above beta it runs away. Where it slows down is the Azzoni distance v0^2 / (2 A g cos a
    (tan(beta) - tan a)) within a factor: between 0.7 and 2.0 of it (measured 0.80, 0.88 and
    1.94 for bedrock, clastic and debris: the facets' landings take energy, and on debris the
    friction mu_min 0.55 is barely above tan(29 deg), so that the sphere slips as it rolls)."""
    tan_beta = PRESETS[name]["rolling_resistance"]
    slope = math.degrees(math.atan(tan_beta)) + offset
    a = math.radians(slope)
    radius, v0 = 0.5, 2.3
    rock = sphere_like_rock
    assert v0**2 > G * radius
    terrain = Terrain.plane(slope, size=(400.0, 20.0), spacing=1.0)
    downhill = np.array([math.cos(a), 0.0, -math.sin(a)])
    normal = np.array([math.sin(a), 0.0, math.cos(a)])
    low = -float((rock.vertices @ normal).min())
    start = np.array([20.0, 0.0, float(terrain.height(20.0, 0.0))]) + (low + 1e-7) * normal
    omega = np.cross(normal, v0 * downhill) / radius
    traj = simulate(
        terrain,
        rock,
        Soil.preset(name),
        start,
        velocity=v0 * downhill,
        omega=omega,
        t_max=40.0,
        save_every=20,
    )
    speed = np.linalg.norm(traj.velocity, axis=1)
    if offset > 0.0:
        assert traj.status in ("left_domain", "timed_out")
        assert speed[-1] > 2.0 * v0
        return
    slow = speed < 0.05 * v0
    assert slow.any()
    where = float(np.linalg.norm(traj.position[int(np.argmax(slow))] - start))
    share = rock.mass / (rock.mass + float(np.mean(rock.inertia)) / radius**2)
    expected = v0**2 / (2.0 * share * G * math.cos(a) * (tan_beta - math.tan(a)))
    assert 0.7 * expected < where < 2.0 * expected


@pytest.mark.parametrize("name", ["stone_deposits", "stone_bedrock", "rf3d_4_talus"])
def test_a_drop_test_rebounds_with_the_class_restitution(name, sphere_like_rock):
    """A sphere of 400 vertices dropped without spin from 1 m onto flat ground leaves it with the
    class's normal restitution times its impact speed (within 3 %: the lowest vertex lies a
    little off the vertical through the centre)."""
    rock = sphere_like_rock
    terrain = Terrain.plane(0.0, size=(40.0, 40.0), spacing=1.0)
    low = -float(rock.vertices[:, 2].min())
    start = np.array([20.0, 0.0, float(terrain.height(20.0, 0.0)) + low + 1.0])
    traj = simulate(terrain, rock, Soil.preset(name), start, t_max=0.8)
    vz = traj.velocity[:, 2]
    hit = int(np.argmax(vz > 0.0))  # the first step after the impact
    assert hit > 0
    impact = -vz[hit - 1]
    assert impact == pytest.approx(math.sqrt(2.0 * G * 1.0), rel=0.02)
    assert vz[hit] / impact == pytest.approx(PRESETS[name]["restitution"], rel=0.03)


@pytest.mark.parametrize("froude", [0.0, 1.0])
def test_only_a_collision_rebounds_when_collision_froude_is_set(froude, sphere_like_rock):
    """The same sphere dropped from 0.1 m (v_n^2 = 1.96 m^2/s^2 below g R = 4.9 m^2/s^2):
    with collision_froude 1 the contact is not a collision and is plastic (no rebound); with 0
    it rebounds with eps_N = 0.65 as Newton's law has it."""
    radius = 0.5
    rock = sphere_like_rock
    terrain = Terrain.plane(0.0, size=(40.0, 40.0), spacing=1.0)
    low = -float(rock.vertices[:, 2].min())
    start = np.array([20.0, 0.0, float(terrain.height(20.0, 0.0)) + low + 0.1])
    soil = Soil(**CLASS_FRICTION, restitution=0.65, collision_froude=froude)
    traj = simulate(terrain, rock, soil, start, t_max=0.4)
    vz = traj.velocity[:, 2]
    falling = int(np.argmax(vz < -0.5))
    hit = falling + int(np.argmax(vz[falling:] > -0.5))  # the step of the impact
    impact = -vz[hit - 1]
    assert impact**2 < G * radius
    expected = 0.0 if froude > 0.0 else 0.65
    assert vz[hit] / impact == pytest.approx(expected, abs=0.02)
