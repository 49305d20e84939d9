"""Start of motion: rocks released at rest on planes of 40 and 45 degrees, with every soil category
of the catalogue, against the closed form of :func:`tumble.rockfall.soil_statics.holding_slippage`.

A rock at rest on a plane of slope theta needs its friction forces to carry ``m g sin(theta)``
against normal forces that sum to ``m g cos(theta)``, so it needs ``mu >= tan(theta)`` whatever
its contacts (Coulomb's disc at every contact). The slippage friction ``mu(s)`` reaches
``tan(theta)`` only on categories whose ``mu_max`` exceeds it, after the slippage ``s*``.

* A category that cannot hold a sliding rock (``s* = inf``: ``authume_hard``, ``mu_max = 0.6``)
  lets fewer than 1 % of the rocks end within 2 m of their release.
* On a category that holds them, every rock that stops within 2 m has the friction to be at rest:
  ``mu(s_end) >= tan(theta) - tol``. The tolerance is what the rest criterion (kinetic energy
  below that of ``v_r`` = rest speed for ``T`` = rest time) cannot see: a rock accelerated by
  less than ``v_r / T`` and one held by the drag ``c`` at a speed below ``v_r``, i.e. a force
  ``m g cos(theta) (tan(theta) - mu)`` below ``m v_r / T + c v_r``:
  ``tol = v_r (1 / T + c / m) / (g cos(theta))``.

The rocks are the EOTA111 (270 kg) and EOTA221 (780 kg) blocks and a flat box (0.4 x 0.3 x
0.2 m), 64 random orientations each (seed 1), their lowest point 1 cm above the plane, as in
``benchmarks/start_of_motion.py``; the ensemble machinery of a run (``Release.draw`` with the
hulls, ``Ensemble``).
"""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, RockStatus, Soil, Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release
from tumble.rockfall.soil import CATALOGUE
from tumble.rockfall.step.model import S_R, S_SLIP

ROCKS = 64
T_MAX = 4.0
G = 9.81
SHAPES = {
    "eota111": lambda: Rock.eota111(mass=270.0),
    "eota221": lambda: Rock.eota221(mass=780.0),
    "box": lambda: Rock.box(0.4, 0.3, 0.2, density=2700.0),
}


def released_at_rest(soil: Soil, rock: Rock, slope: float) -> dict:
    """The 64 rocks released at rest on the plane; per rock its horizontal run-out, whether it
    stopped, and its slippage at the end."""
    terrain = Terrain.plane(slope, size=(120.0, 30.0), spacing=1.0)
    release = Release(point=(40.0, 0.0), height=0.01)
    states = release.draw(terrain, ROCKS, 1, hulls=Hulls.of(rock))
    ensemble = Ensemble(terrain, rock, soil, states, seed=1, t_max=T_MAX)
    chunk = ensemble.run_chunk(0, ROCKS, threads=2)
    final = chunk["final_state"]
    return {
        "runout": np.hypot(*(final[:, S_R : S_R + 2] - states.position[:, :2]).T),
        "stopped": chunk["status"] == int(RockStatus.STOPPED),
        "slippage": final[:, S_SLIP],
        "options": ensemble.options,
    }


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("slope", [40.0, 45.0])
@pytest.mark.parametrize("name", list(CATALOGUE))
def test_rocks_stop_at_once_only_where_the_friction_holds_them(name, slope, shape):
    soil = Soil.preset(name)
    rock = SHAPES[shape]()
    out = released_at_rest(soil, rock, slope)
    tan = math.tan(math.radians(slope))
    if not soil.holds(slope):
        # whatever their status at t_max: none may still be near its release
        near = out["runout"] < 2.0
        assert near.mean() < 0.01, f"{near.sum()} of {ROCKS} rocks within 2 m"
        return
    early = out["stopped"] & (out["runout"] < 2.0)
    opts = out["options"]
    tol = opts.rest_speed * (1.0 / opts.rest_time + float(soil.drag) / rock.mass)
    tol /= G * math.cos(math.radians(slope))
    mu_end = np.asarray(soil.mu(out["slippage"][early]))
    assert np.all(mu_end >= tan - tol - 1e-12), (
        f"rocks at rest with mu {mu_end[mu_end < tan - tol]} < tan {tan:.4f} - {tol:.2e}"
    )
    # the same in slippage: each gathered at least s* of the friction tan(theta) - tol
    s_star = soil.holding_slippage(math.degrees(math.atan(tan - tol)))
    assert np.all(out["slippage"][early] >= s_star * (1.0 - 1e-9))


def test_authume_hard_cannot_hold_and_every_other_category_can():
    """The premise of the cases above, by the closed form: of the catalogue only authume_hard
    (mu_max = 0.6 < tan 40 = 0.839) lets a sliding rock go on 40 and 45 degrees; lu2019, medium
    and authume_rocky (mu_max 2.0), l14_scarring (1.3), l14_wheel (10) and authume_vegetated
    (3.0) hold it."""
    for slope in (40.0, 45.0):
        holding = {name for name in CATALOGUE if Soil.preset(name).holds(slope)}
        assert holding == set(CATALOGUE) - {"authume_hard"}
