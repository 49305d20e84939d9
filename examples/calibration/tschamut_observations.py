"""The Tschamut 2014 tests (``tumble.validation.tschamut``; the data are not shipped, read from
their directory as ``tumble validate tschamut --data-dir DIR`` reads them) as a site for
``tumble rockfall calibrate``: the proxy terrain, a configuration, the runs of odd number
(``odd.csv``) and of even number (``even.csv``) as observations.

    python examples/calibration/tschamut_observations.py /tmp/tschamut_data out/tschamut-site
    tumble rockfall calibrate --config out/tschamut-site/site.toml \\
        --observations out/tschamut-site/odd.csv --check out/tschamut-site/even.csv \\
        --free mu_min=0.2:0.7 --free mu_max=0.6:2 --free kappa=1:5 \\
        --free rolling_resistance=0:0.3 --free collision_froude=0:2 \\
        --points 48 --orientations 4 --out out/tschamut-site/calib

What is written:

* ``dem.tif``: the producer's proxy terrain (a trend plane plus inverse-distance-weighted
  residuals of the LPS heights, 5 m, local frame, no CRS) as
  :func:`tumble.validation.tschamut.read_terrain` reads it;
* ``site.toml``: that DEM, ``t_max`` 60 s as the validation, the soil ``lu2019`` (the fields
  not set free keep its values);
* ``odd.csv``, ``even.csv``: one row per run, split by the parity of the run's number
  (``v005`` odd, ``v004`` even): ``release_x, release_y`` the first tracked sample, no height
  (placed 1 cm above the terrain, as the validation's default placement), ``vx, vy, vz`` the
  velocity of that sample, ``box_x, box_y, box_z`` the block's measured principal lengths
  with its measured ``mass`` (the validation's ``shape="box"``), ``stop_x, stop_y`` the last
  tracked sample.

With ``--shape natural`` the blocks are the natural hulls of ``tumble validate tschamut --shape
natural`` instead of boxes: ``hulls/BLOCK_HULL.stl`` (the four photogrammetric Authume hulls
stretched to each block's measured lengths), one ``[[rock.classes]]`` per block and hull carrying
the block's measured mass, and each run's row names the class of its block and of hull ``k mod
4`` (``k`` the run's place in the files) instead of the box columns:

    python examples/calibration/tschamut_observations.py /tmp/tschamut_data out/tschamut-natural \
        --shape natural

With ``--placement recorded`` each row has ``release_z``, the centre the block's bounding radius
(its farthest hull vertex) above the files' ground height at the release (the recorded centre
height less the block's equivalent radius), as ``tumble validate tschamut --placement recorded``
places it: ``calibrate`` lifts an orientation whose hull would reach into the proxy terrain until
it clears it.

With ``--zones slope`` the soil is a map of two classes, both ``lu2019``: ``zones.tif``, class 2
(the run-out zone) where the terrain is flatter than :data:`RUNOUT_SLOPE` = 16.7 deg, the
rolling friction angle of the STONE class with the least rolling friction (tan 0.30; Guzzetti et
al. 2002 as Alvioli et al. 2021 list it, ``physics/reach_and_rolling.md``): on such ground a
rolling block decelerates in every STONE class. Class 1 is the rest, the slopes. The slope of a
sample is that of the central differences of the heights around it (one-sided at the border and beside nodata),
as the run's rasters take it (``slope_cosines``), the rule a soil map's nearest-sample
reading gives to a point. Class 2 has the drag layer height
of the Authume vegetated zone (2 m; ``lu2019`` has no drag, so it acts only once ``2.drag`` is
set free). The fields are then set free per class (``--free 2.rolling_resistance=0:0.4``).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
import trimesh

from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble.rasters import Window, slope_cosines
from tumble.rockfall.terrain import Terrain
from tumble.validation.tschamut import NATURAL_HULLS, TschamutData, load

COLUMNS = ("id", "release_x", "release_y", "vx", "vy", "vz", "box_x", "box_y", "box_z", "mass")
#: terrain flatter than this (deg) is class 2 of ``--zones slope``: STONE's least rolling
#: friction angle, atan(0.30)
RUNOUT_SLOPE = float(np.degrees(np.arctan(0.30)))
NATURAL_COLUMNS = ("id", "release_x", "release_y", "vx", "vy", "vz", "class")


def natural_classes(data: TschamutData, folder: Path) -> str:
    """The stretched hulls as STL files and their ``[[rock.classes]]``."""
    (folder / "hulls").mkdir(exist_ok=True)
    share = 1.0 / (len(data.blocks) * len(NATURAL_HULLS))
    lines = []
    for block_id, block in data.blocks.items():
        for rock in block.natural_rocks():
            name = f"{block_id}_{rock.name}"
            hull = trimesh.convex.convex_hull(rock.vertices)
            hull.export(folder / "hulls" / f"{name}.stl")
            lines += [
                "[[rock.classes]]",
                f'name = "{name}"',
                f"share = {share!r}",
                'shape = "file"',
            ]
            lines += [f'file = "hulls/{name}.stl"', f"mass = {block.mass!r}", ""]
    return "\n".join(lines)


def runout_zone(terrain: Terrain) -> np.ndarray:
    """The soil classes of ``--zones slope`` on the terrain's samples: 2 where the slope
    (:func:`tumble.rockfall.ensemble.rasters.slope_cosines`, the rule of the run's rasters) is
    below :data:`RUNOUT_SLOPE`, 1 elsewhere."""
    ny, nx = terrain.shape
    heights = np.asarray(terrain.heights, dtype=np.float64)
    cosine = slope_cosines(heights, terrain.dx, terrain.dy, Window(0, ny, 0, nx))
    return np.where(np.degrees(np.arccos(cosine)) < RUNOUT_SLOPE, 2.0, 1.0)


def write_site(
    data_dir: str | Path,
    folder: str | Path,
    shape: str = "box",
    placement: str = "clearance",
    zones: str = "none",
) -> dict[str, int]:
    """The files of the module docstring in ``folder``; the number of runs of each file."""
    if shape not in ("box", "natural"):
        raise ValueError(f"shape must be 'box' or 'natural', got {shape!r}")
    if placement not in ("clearance", "recorded"):
        raise ValueError(f"placement must be 'clearance' or 'recorded', got {placement!r}")
    if zones not in ("none", "slope"):
        raise ValueError(f"zones must be 'none' or 'slope', got {zones!r}")
    data = load(data_dir)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data.terrain.write(folder / "dem.tif")
    text = 'dem = "dem.tif"\nt_max = 60.0\n\n[soil]\n'
    if zones == "none":
        text += 'preset = "lu2019"\n'
    else:
        code = runout_zone(data.terrain)
        data.terrain.write_raster(folder / "zones.tif", code, description="soil class", cog=True)
        text += 'map = "zones.tif"\n\n'
        text += f"# class 2: slope below {RUNOUT_SLOPE:.1f} deg (the run-out zone)\n"
        text += '[soil.classes.1]\npreset = "lu2019"\n\n[soil.classes.2]\npreset = "lu2019"\n'
        text += "# the drag layer of the Authume vegetated zone, so that a drag set free acts\n"
        text += "drag_height = 2.0\n"
    if shape == "natural":
        text += "\n" + natural_classes(data, folder)
    (folder / "site.toml").write_text(text)
    counts = {}
    for name, parity in (("odd.csv", 1), ("even.csv", 0)):
        rows = [k for k, run in enumerate(data.run_id) if int(run.lstrip("v")) % 2 == parity]
        with open(folder / name, "w", newline="") as handle:
            out = csv.writer(handle)
            columns = NATURAL_COLUMNS if shape == "natural" else COLUMNS
            recorded = ("release_z",) if placement == "recorded" else ()
            out.writerow([*columns, *recorded, "stop_x", "stop_y"])
            for k in rows:
                block = data.blocks[data.block_id[k]]
                row = [data.run_id[k], *(f"{v:.6f}" for v in data.release[k, :2])]
                row += [f"{v:.6f}" for v in data.velocity[k]]
                if shape == "natural":
                    hull = NATURAL_HULLS[k % len(NATURAL_HULLS)]
                    row += [f"{data.block_id[k]}_{hull}"]
                    rock = block.natural_rocks()[k % len(NATURAL_HULLS)]
                else:
                    row += [f"{v:g}" for v in block.size] + [f"{block.mass:g}"]
                    rock = block.rock("box")
                if placement == "recorded":
                    ground = data.release[k, 2] - block.radius
                    row += [f"{ground + Hulls.of(rock).radius(0):.6f}"]
                row += [f"{v:.6f}" for v in data.stop[k, :2]]
                out.writerow(row)
        counts[name] = len(rows)
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--shape", choices=("box", "natural"), default="box")
    parser.add_argument("--placement", choices=("clearance", "recorded"), default="clearance")
    parser.add_argument("--zones", choices=("none", "slope"), default="none")
    args = parser.parse_args()
    print(write_site(args.data_dir, args.out_dir, args.shape, args.placement, args.zones))
