"""A synthetic site for ``tumble rockfall calibrate``: a 40 degree slope above flat ground
(``slope.asc``), its configuration (``site.toml``: Lu et al. 2019's soil) and blocks that came
down on it with a soil we chose, ``rolling_resistance = 0.3`` on ``lu2019`` (``stops.csv``, and
``held_out.csv`` for ``--check``). With ``--classes`` the site has a soil map (``soil.asc``:
class 1 the slope, class 2 the flat ground, both ``lu2019``) and the blocks came down with
``rolling_resistance = 0.3`` on class 2 only.

    python examples/calibration/make_site.py out/calibration-site
    tumble rockfall calibrate --config out/calibration-site/site.toml \\
        --observations out/calibration-site/stops.csv --check out/calibration-site/held_out.csv \\
        --free rolling_resistance=0:0.8 --out out/calibration-site/calib

    python examples/calibration/make_site.py out/calibration-map --classes
    tumble rockfall calibrate --config out/calibration-map/site.toml \\
        --observations out/calibration-map/stops.csv --free 2.rolling_resistance=0:0.8 \\
        --out out/calibration-map/calib
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

from tumble.io.config import load_config
from tumble.io.observations import Observations
from tumble.pipeline.calibration.blocks import blocks_on, releases
from tumble.pipeline.calibration.search import simulate
from tumble.pipeline.calibration.site import Site, site_of
from tumble.rockfall.terrain import Terrain

#: the soil the blocks came down on
TRUE_SOIL = {"rolling_resistance": 0.3}
#: the soil of the site with a soil map (``--classes``): class 2, the flat ground
TRUE_CLASS_SOIL = {"2.rolling_resistance": 0.3}
SLOPE_DEG = 40.0
T_MAX = 20.0


def terrain() -> Terrain:
    """40 degrees for x in [0, 40] m, flat beyond, to x = 120 m; y in [-20, 20] m."""
    x = np.arange(0.0, 121.0, 2.0)
    y = np.arange(-20.0, 21.0, 2.0)
    z = np.maximum(0.0, 40.0 - x) * np.tan(np.radians(SLOPE_DEG))
    return Terrain.from_array(np.broadcast_to(z, (y.size, x.size)), x0=0.0, y0=-20.0, dx=2.0)


def blocks(n: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` EOTA221 blocks of 200-800 kg released near the top at 4 m/s down the slope."""
    rng = np.random.default_rng(seed)
    return {
        "release_x": np.full(n, 5.0),
        "release_y": rng.uniform(-5.0, 5.0, n),
        "vx": np.full(n, 4.0),
        "mass": rng.uniform(200.0, 800.0, n).round(),
    }


def observe(site: Site, truth: dict[str, float], columns: dict[str, np.ndarray], seed: int):
    """Where each block stops on the chosen soil (one orientation each): (n, 2)."""
    n = len(columns["mass"])
    given = {**columns, "stop_x": columns["release_x"], "stop_y": columns["release_y"]}
    obs = Observations("synthetic", given, {"shape": ("eota221",) * n})
    rel = releases(blocks_on(obs, site.terrain), site.terrain, 1, seed)
    return simulate(site, rel, site.soil_with(truth), seed, 1).stop


def write_observations(path: Path, columns: dict[str, np.ndarray], stop: np.ndarray) -> None:
    names = ["release_x", "release_y", "vx", "shape", "mass", "stop_x", "stop_y"]
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(names)
        for i in range(len(stop)):
            out.writerow(
                [
                    f"{columns['release_x'][i]:.3f}",
                    f"{columns['release_y'][i]:.3f}",
                    f"{columns['vx'][i]:g}",
                    "eota221",
                    f"{columns['mass'][i]:g}",
                    f"{stop[i, 0]:.3f}",
                    f"{stop[i, 1]:.3f}",
                ]
            )


def write_site(
    folder: str | Path, n: int = 60, held_out: int = 30, seed: int = 1, classes: bool = False
) -> Path:
    """The site of the module docstring in ``folder`` (with a soil map if ``classes``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    site_terrain = terrain()
    site_terrain.write(folder / "slope.asc")
    text = f'dem = "slope.asc"\nt_max = {T_MAX}\n\n[soil]\n'
    if classes:
        x = site_terrain.x0 + np.arange(site_terrain.shape[1]) * site_terrain.dx
        code = np.broadcast_to(np.where(x < 40.0, 1.0, 2.0), site_terrain.shape)
        site_terrain.write_raster(folder / "soil.asc", code, description="soil class")
        text += 'map = "soil.asc"\n[soil.classes]\n1 = "lu2019"\n2 = "lu2019"\n'
    else:
        text += 'preset = "lu2019"\n'
    (folder / "site.toml").write_text(text)
    site = site_of(load_config(folder / "site.toml"))
    truth = TRUE_CLASS_SOIL if classes else TRUE_SOIL
    for name, count, stream in (("stops.csv", n, seed), ("held_out.csv", held_out, seed + 1)):
        columns = blocks(count, stream)
        stop = observe(site, truth, columns, 1000 + stream)
        write_observations(folder / name, columns, stop)
    return folder


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--classes"]
    out = write_site(args[0] if args else "out/calibration-site", classes="--classes" in sys.argv)
    print(f"wrote {out}/")
