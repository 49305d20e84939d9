"""The Authume quarry tests (``tumble.validation.authume``) as a site for ``tumble rockfall
calibrate``: the DEM and its zones as a soil map, a configuration, and each profile's measured
blocks as observations (``p1.csv``, ``p2.csv``).

    python examples/calibration/authume_observations.py out/authume-site
    tumble rockfall calibrate --config out/authume-site/site.toml \\
        --observations out/authume-site/p1.csv --check out/authume-site/p2.csv \\
        --free 1.drag=100:600 --free 1.mu_min=0.55:1 --free 2.rolling_resistance=0:0.3 \\
        --points 32 --orientations 4 --threads 2 --out out/authume-site/calib

What is written (``docs/calibration.md`` states what it leaves out):

* ``dem.tif``: the three terrain meshes rasterised at 0.5 m (the validation's DEM,
  :func:`tumble.validation.authume.terrain.authume_terrain`), local frame, no CRS;
* ``zones.tif``: the soil map, class 1 the vegetated slope (Blue), 2 the hard surfaces (Gray,
  and the filled nodes outside the survey, which the validation gives the Gray row too), 3 the
  rocky slope (Red);
* ``site.toml``: each class's soil is the row of the validation's default parameters
  (:data:`tumble.validation.authume.soils.CALIBRATED_JOINT`, the calibration on P1 and P2
  together; the Red zone's ``mu_r`` 0.17 and the Blue zone's drag were chosen with P2, so P2 is
  not blind to them) with the vegetation drag of a block of
  the median measured mass of P1 (the validation scales it with each block's projected area; a
  configuration has one drag per class); ``t_max`` 60 s as the validation;
* ``p1.csv``, ``p2.csv``: one row per measured block: its release at the drop points moved
  :data:`DROP_OFFSET` beyond the crest (the validation's calibrated drop offset), block ``i`` at
  drop point ``i mod 4`` (the data do not say which block fell from which point), the centre's
  height that of the drop point; the rock its measured mass on the block shape (``class``, one
  ``[[rock.classes]]`` per scanned shape, the convex hull of its mesh) whose aspect ratios are
  nearest to the measured bounding box's, as the validation's ``shape="aspect"`` chooses
  (:func:`tumble.validation.authume.releases.authume_releases`), the hull at the density that
  gives it the mesh's mass, as there; the measured stop.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

from tumble.validation.authume import data
from tumble.validation.authume.releases import crest_offsets
from tumble.validation.authume.soils import CALIBRATED_JOINT, ZONE_ROWS, vegetation_scale
from tumble.validation.authume.terrain import ZONE_OUTSIDE, authume_terrain

#: the parameters the site's soil rows are written from: those ``tumble validate authume``
#: validates by default
PARAMETERS = CALIBRATED_JOINT
#: horizontal distance (m) of the release beyond the crest (the parameters' drop offset)
DROP_OFFSET = PARAMETERS.drop_offset
#: soil map class of each zone row
CLASS_OF_ROW = {"blue": 1, "gray": 2, "red": 3}
COLUMNS = ("id", "release_x", "release_y", "release_z", "class", "mass")


def release_points(profile: str) -> np.ndarray:
    """The profile's four drop points (4, 3) moved :data:`DROP_OFFSET` beyond their crest."""
    drops = data.drop_points(profile).copy()
    shift = crest_offsets(profile) - DROP_OFFSET
    drops[:, :2] -= shift[:, None] * data.profile_geometry(profile).direction
    return drops


def shape_of(size: np.ndarray, mass: float) -> str:
    """The block shape whose aspect ratios ``L2/L1, L3/L1`` are nearest (in log) to those of
    ``size`` (L1 >= L2 >= L3), shapes of equal aspect (within 0.01) told apart by the mass."""
    blocks = data.authume_blocks()
    names = tuple(blocks)
    aspect = np.array([np.log(blocks[n].size[1:] / blocks[n].size[0]) for n in names])
    distance = np.linalg.norm(aspect - np.log(size[1:] / size[0]), axis=1)
    near = distance <= distance.min() + 0.01
    by_mass = np.abs(np.log([blocks[n].mass for n in names]) - np.log(mass))
    return names[int(np.argmin(np.where(near, by_mass, np.inf)))]


def write_observations(path: Path, profile: str) -> int:
    measured = data.measured_endpoints(profile)
    drops = release_points(profile)
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow([*COLUMNS, "stop_x", "stop_y"])
        for i, mass in enumerate(measured.mass):
            row = [f"{profile}-{i + 1}", *(f"{v:.4f}" for v in drops[i % 4])]
            row += [shape_of(measured.size[i], mass), f"{mass:g}"]
            row += [f"{v:.4f}" for v in measured.position[i, :2]]
            out.writerow(row)
    return len(measured.mass)


def rock_classes() -> str:
    """One ``[[rock.classes]]`` per scanned block: its mesh's convex hull at the density that
    gives the hull the mesh's mass (``data.DENSITY`` times the mesh's share of the hull)."""
    lines = []
    for name, block in data.authume_blocks().items():
        density = block.mass / block.hull_volume
        path = data.data_directory() / "Geometries" / "STL" / f"{name}.stl"
        lines += ["[[rock.classes]]", f'name = "{name}"', "share = 0.25", 'shape = "file"']
        lines += [f'file = "{path.resolve()}"', f"density = {density:.1f}", ""]
    return "\n".join(lines)


def soil_classes() -> str:
    """``[soil.classes.N]`` tables: the rows of :data:`PARAMETERS`, the Blue zone's drag that
    of a block of P1's median mass."""
    volume = float(np.median(data.measured_endpoints("p1").mass)) / data.DENSITY
    table = PARAMETERS.table(volume)
    lines = []
    for row, code in CLASS_OF_ROW.items():
        lines += [f"[soil.classes.{code}]", 'preset = "lu2019"']
        lines += [f"{name} = {value!r}" for name, value in table[row].items()]
    scale = float(vegetation_scale(volume))
    head = f"# Blue drag {PARAMETERS.vegetation_drag:g} kg/s x (V / 1 m^3)^(2/3) = x{scale:.3f}"
    return "\n".join([head, *lines]) + "\n"


def write_site(folder: str | Path) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    terrain = authume_terrain()
    terrain.write(folder / "dem.tif")
    zone = np.rint(terrain.soil["zone"]).astype(np.int64)
    code = np.zeros(zone.shape)
    for zone_id, row in ZONE_ROWS.items():
        code[zone == zone_id] = CLASS_OF_ROW[row]
    assert ZONE_ROWS[ZONE_OUTSIDE] == "gray"
    terrain.write_raster(folder / "zones.tif", code, description="soil class", cog=True)
    text = 'dem = "dem.tif"\nt_max = 60.0\n\n' + rock_classes()
    text += '\n[soil]\nmap = "zones.tif"\n\n' + soil_classes()
    (folder / "site.toml").write_text(text)
    for profile in ("p1", "p2"):
        write_observations(folder / f"{profile}.csv", profile)
    return folder


if __name__ == "__main__":
    print(f"wrote {write_site(sys.argv[1] if len(sys.argv) > 1 else 'out/authume-site')}/")
