"""Write the synthetic example site of ``examples/site/site.toml`` into a folder.

    python examples/site/make_site.py                 # into examples/site/
    python examples/site/make_site.py --out /tmp/site # anywhere else (site.toml is copied along)

The site is invented (no real place), laid out like an Alpine rockfall slope in the Swiss LV95
coordinates (EPSG:2056), 2 m cells, 300 m downslope (x, west to east) by 200 m across (y):

* ``dem.tif``: a cliff band (55 degrees) above a talus slope (35 degrees) that flattens into a
  valley floor (2 degrees) and rises again on the far side (30 degrees), with a shallow gully
  down the southern half and a smooth, seeded small-scale roughness of +-0.3 m;
* ``release.gpkg``: two release areas on the cliff band, ``north face`` and ``south face``, with
  their onset frequencies (``frequency``, events per year; illustrative values of this example,
  not survey data);
* ``barrier.gpkg``: one line, ``dam``, across the foot of the talus, where a fence may stand.

The DEM has a nodata hole (a pond in the valley floor, outside the domain: a rock reaching it
has left, like at the edge); ``--no-hole`` writes it without.

``--forest`` also writes a forest on the lower talus (x = 70 to 130 m; illustrative, not survey
data): ``stems.tif`` (stems per hectare, 400 in the band, 0 elsewhere, on a 10 m grid) and
``trees.gpkg`` (single trees at random positions in the band, 400 per hectare, ``dbh`` in cm
drawn between 20 and 40), for ``[forest]`` (README, "Forest").
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np

from tumble.io.dem import write_raster
from tumble.io.vectors import write_lines, write_points, write_polygons

#: whether the DEM gets its nodata hole by default (``--hole`` / ``--no-hole``)
HOLE_DEFAULT = True

CRS = "EPSG:2056"
X0, Y0 = 2_600_000.0, 1_200_000.0  # south-west sample, m
SPACING = 2.0  # m
LENGTH, WIDTH = 300.0, 200.0  # m along x (downslope) and y
#: the profile down the slope: (end of the segment, m from the top edge; slope, degrees),
#: cliff band, talus, valley floor, counter-slope of the far valley side (negative: rising)
PROFILE = ((40.0, 55.0), (130.0, 35.0), (250.0, 2.0), (LENGTH, -30.0))
HOLE_CENTRE, HOLE_RADIUS = (200.0, 22.0), 8.0  # m from the south-west corner


def heights(x: np.ndarray, y: np.ndarray, seed: int = 7) -> np.ndarray:
    """Terrain height (m) at local coordinates x (downslope), y (across), both from 0."""
    z = np.full(np.shape(x), 1400.0)
    start = 0.0
    for end, slope in PROFILE:
        z -= np.tan(np.radians(slope)) * np.clip(x - start, 0.0, end - start)
        start = end
    # a shallow gully down the southern half, deepest on the talus
    gully = 3.0 * np.exp(-(((y - 70.0) / 14.0) ** 2)) * np.clip((x - 30.0) / 50.0, 0.0, 1.0)
    z -= gully * np.clip((170.0 - x) / 50.0, 0.0, 1.0)
    # smooth roughness: a few seeded long-wave cosines, +-0.3 m
    rng = np.random.default_rng(seed)
    bumps = np.zeros_like(z)
    for _ in range(6):
        kx, ky = rng.uniform(0.05, 0.2, 2)
        phase = rng.uniform(0.0, 2.0 * np.pi)
        bumps += np.cos(kx * x + ky * y + phase)
    return z + 0.3 * bumps / 6.0


def write_site(
    out: Path, hole: bool = HOLE_DEFAULT, spacing: float = SPACING, length: float = LENGTH
) -> list[Path]:
    """Write dem.tif, release.gpkg and barrier.gpkg into ``out``; returns their paths.
    ``spacing`` (m) and ``length`` (m downslope; flat beyond the far valley side) size the DEM:
    ``python benchmarks/scale.py --workload site`` writes 0.4 m cells over 400 m, a 1001 x 501
    grid."""
    out.mkdir(parents=True, exist_ok=True)
    nx, ny = int(length / spacing) + 1, int(WIDTH / spacing) + 1
    x = np.arange(nx) * spacing
    y = np.arange(ny) * spacing
    gx, gy = np.meshgrid(x, y)
    z = heights(gx, gy)
    if hole:
        z[np.hypot(gx - HOLE_CENTRE[0], gy - HOLE_CENTRE[1]) < HOLE_RADIUS] = np.nan
    dem = write_raster(
        out / "dem.tif",
        z,
        X0,
        Y0,
        spacing,
        spacing,
        crs=CRS,
        nodata=-9999.0,
        description="terrain height",
        unit="m",
    )

    def ring(points: list[tuple[float, float]]) -> np.ndarray:
        return np.array([(X0 + a, Y0 + b) for a, b in points])

    release = write_polygons(
        out / "release.gpkg",
        [
            [ring([(6.0, 116.0), (34.0, 112.0), (36.0, 160.0), (8.0, 166.0)])],
            [ring([(6.0, 40.0), (32.0, 44.0), (34.0, 90.0), (4.0, 94.0)])],
        ],
        {"name": ["north face", "south face"], "frequency": [0.5, 0.2]},
        crs=CRS,
    )
    line = np.array([(X0 + 130.0, Y0 + 6.0), (X0 + 132.0, Y0 + 100.0), (X0 + 130.0, Y0 + 194.0)])
    barrier = write_lines(
        out / "barrier.gpkg",
        [np.column_stack([line, np.zeros(3)])],
        {"name": ["dam"]},
        crs=CRS,
    )
    return [dem, release, barrier]


FOREST_BAND = (70.0, 130.0)  # m downslope from the top edge
FOREST_STEMS_PER_HA = 400.0


def write_forest(out: Path, seed: int = 11) -> list[Path]:
    """Write stems.tif (stems per hectare on a 10 m grid) and trees.gpkg (points with ``dbh``,
    cm) of the forest band (module docstring); returns their paths."""
    cell = 10.0
    nx, ny = int(LENGTH / cell) + 1, int(WIDTH / cell) + 1
    x = np.arange(nx) * cell
    band = (x >= FOREST_BAND[0]) & (x <= FOREST_BAND[1])
    stems = np.broadcast_to(np.where(band, FOREST_STEMS_PER_HA, 0.0), (ny, nx))
    raster = write_raster(
        out / "stems.tif",
        np.ascontiguousarray(stems),
        X0,
        Y0,
        cell,
        cell,
        crs=CRS,
        nodata=-9999.0,
        description="stems per hectare",
        unit="1/ha",
    )
    rng = np.random.default_rng(seed)
    area = (FOREST_BAND[1] - FOREST_BAND[0]) * WIDTH
    n = int(round(FOREST_STEMS_PER_HA * area / 10_000.0))
    tx = X0 + rng.uniform(*FOREST_BAND, n)
    ty = Y0 + rng.uniform(0.0, WIDTH, n)
    trees = write_points(
        out / "trees.gpkg",
        np.column_stack([tx, ty, np.zeros(n)]),
        {"dbh": np.round(rng.uniform(20.0, 40.0, n), 1)},
        crs=CRS,
    )
    return [raster, trees]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parent
    parser.add_argument(
        "--out",
        type=Path,
        default=here,
        help="folder to write (default: the folder of this script, beside its site.toml)",
    )
    parser.add_argument(
        "--hole",
        action=argparse.BooleanOptionalAction,
        default=HOLE_DEFAULT,
        help="cut a nodata hole into the valley floor",
    )
    parser.add_argument(
        "--forest",
        action="store_true",
        help="also write stems.tif and trees.gpkg, a forest band on the lower talus",
    )
    args = parser.parse_args()
    paths = write_site(args.out, hole=args.hole)
    if args.forest:
        paths += write_forest(args.out)
    for path in paths:
        print(f"wrote {path}")
    if args.out.resolve() != here:
        shutil.copy(here / "site.toml", args.out / "site.toml")
        print(f"wrote {args.out / 'site.toml'}")


if __name__ == "__main__":
    main()
