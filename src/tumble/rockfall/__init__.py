"""3D rockfall: terrain, rocks, Moreau time-stepping with frictional contact, ensembles.

>>> from tumble.rockfall import Terrain, Rock, Soil, simulate
>>> terrain = Terrain.plane(40.0, size=(200.0, 60.0), spacing=2.0)
>>> rock = Rock.eota221(mass=780.0)
>>> traj = simulate(terrain, rock, Soil.preset("medium"), position=(10.0, 0.0, 170.0))
"""

from tumble.rockfall.rock import Rock
from tumble.rockfall.simulate import RockTrajectory, simulate
from tumble.rockfall.soil import Soil
from tumble.rockfall.status import RockStatus
from tumble.rockfall.step.model import Options, RockModel
from tumble.rockfall.terrain import Terrain

__all__ = [
    "Options",
    "Rock",
    "RockModel",
    "RockStatus",
    "RockTrajectory",
    "Soil",
    "Terrain",
    "simulate",
]
