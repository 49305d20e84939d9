"""Write the real example site of ``examples/real_site/site.toml`` into a folder.

    python examples/real_site/make_site.py --source avaHit.asc   # crop the DEM, write the site
    python examples/real_site/make_site.py                       # dem.tif there: the site only
    python examples/real_site/make_site.py --out /tmp/hit --source avaHit.asc

The terrain is real: a 400 x 400 cell crop (5 m cells, 2 km x 2 km) of the Land Tirol digital
terrain model above Hintertux (Tuxer Tal, Tyrol, Austria; 47.11 N, 11.67 E), in MGI / Austria
Lambert (EPSG:31287), as redistributed with the AvaFrame test case ``avaHit`` (README.md beside
this file gives the source, the licence, the attribution and what was done to the data). A rock
band (up to 82 degrees at 5 m) runs from south-west to north-east above a 700 m slope that ends
on the flat valley floor; the data end on an irregular polygon (the clip of the data set), so
the crop has nodata along its western and northern edges.

* ``dem.tif``: the crop (float32, deflate, nodata -9999), written from ``--source`` (the file
  ``avaframe/data/avaHit/Inputs/avaHit.asc`` of AvaFrame, checked by its SHA-256); without
  ``--source`` an existing ``dem.tif`` in the folder is used;
* ``release.gpkg``: two release areas, ``west band`` and ``east band``: within a window around
  each part of the rock band, the cells steeper than 60 degrees (slope from central differences
  at the DEM's 5 m), joined across one-cell gaps, the largest patch; their onset frequencies
  (``frequency``, events per year) are illustrative values of this example, not a survey;
* ``barrier.gpkg``: two lines along contours (the longest piece of the contour inside a window,
  one vertex about every 10 m): ``net`` at 1700 m a.s.l. on the slope below the west band (a
  net of ``site.toml``'s height and capacity) and ``valley`` at 1510 m a.s.l. just above the
  valley floor (an observation line).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
from pathlib import Path

import numpy as np

from tumble.io.dem import north_up_transform, read_raster, write_raster
from tumble.io.vectors import write_lines, write_polygons

#: SHA-256 of AvaFrame's ``avaframe/data/avaHit/Inputs/avaHit.asc`` (446 rows x 526 columns)
SOURCE_SHA256 = "46ccdadb22487bd1ff135347d6606f4baa71c79fcb4733065923b78a8680ccd7"
#: the crop: rows and columns of the source file, counted from its north-west corner
CROP_ROWS, CROP_COLS = (0, 400), (20, 420)
#: the source's CRS: the .asc has no .prj; AvaFrame's vector files of the site (REL/relHit.prj,
#: ...) are in MGI / Austria Lambert, the Land Tirol data as AvaFrame redistributes them
CRS = "EPSG:31287"
NODATA = -9999.0

#: slope (degrees) above which a cell may release rocks
RELEASE_SLOPE = 60.0
#: window (x_min, y_min, x_max, y_max, EPSG:31287 m) around each part of the rock band, and the
#: onset frequency of each area (events per year, illustrative)
RELEASE = {
    "west band": ((272890.0, 358550.0, 273550.0, 359055.0), 0.2),
    "east band": ((273640.0, 359150.0, 274170.0, 359680.0), 0.1),
}
#: the barrier lines: a contour (m a.s.l.) inside a window (x_min, y_min, x_max, y_max)
NET = ("net", 1900.0, (273150.0, 358350.0, 273650.0, 358800.0))
LINE = ("valley", 1510.0, (273300.0, 357500.0, 274900.0, 358700.0))
#: spacing of the vertices of the barrier lines, m
VERTEX_SPACING = 10.0


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def crop_source(source: Path, out: Path) -> Path:
    """Write ``out/dem.tif``, the crop of the AvaFrame file ``source`` (checked by its hash)."""
    found = sha256(source)
    if found != SOURCE_SHA256:
        raise SystemExit(
            f"{source} is not AvaFrame's avaframe/data/avaHit/Inputs/avaHit.asc "
            f"(SHA-256 {found}, expected {SOURCE_SHA256}); README.md says where to get it"
        )
    grid = read_raster(source)  # rows south to north
    ny = grid.values.shape[0]
    (r0, r1), (c0, c1) = CROP_ROWS, CROP_COLS
    # rows counted from the north edge of the file
    values = grid.values[ny - r1 : ny - r0, c0:c1]
    return write_raster(
        out / "dem.tif",
        values,
        grid.x0 + c0 * grid.dx,
        grid.y0 + (ny - r1) * grid.dy,
        grid.dx,
        grid.dy,
        crs=CRS,
        nodata=NODATA,
        dtype="float32",
        description="terrain height (Land Tirol DGM, via AvaFrame avaHit)",
        unit="m",
    )


def slope_deg(z: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """Slope (degrees) of each sample from central differences (NaN next to nodata)."""
    gy, gx = np.gradient(z, dy, dx)
    return np.degrees(np.arctan(np.hypot(gx, gy)))


def release_polygon(
    z: np.ndarray, x0: float, y0: float, dx: float, dy: float, window: tuple
) -> list[np.ndarray]:
    """The rings (exterior first) of the largest patch of cells steeper than
    :data:`RELEASE_SLOPE` inside ``window``, joined across one-cell gaps."""
    from rasterio.features import shapes
    from scipy import ndimage

    ny, nx = z.shape
    x = x0 + dx * np.arange(nx)
    y = y0 + dy * np.arange(ny)
    x_min, y_min, x_max, y_max = window
    inside = ((x >= x_min) & (x <= x_max))[None, :] & ((y >= y_min) & (y <= y_max))[:, None]
    steep = np.nan_to_num(slope_deg(z, dx, dy), nan=0.0) > RELEASE_SLOPE
    # keep two cells off the nodata: every corner of a release cell is data
    valid = ndimage.binary_erosion(np.isfinite(z), iterations=2)
    mask = ndimage.binary_closing(steep & inside, iterations=1) & valid & inside
    labels, count = ndimage.label(mask)
    if count == 0:
        raise SystemExit(f"no cell steeper than {RELEASE_SLOPE} degrees in window {window}")
    sizes = ndimage.sum(mask, labels, index=np.arange(1, count + 1))
    patch = (labels == 1 + int(np.argmax(sizes))).astype(np.uint8)
    # the grid's rows run south to north: flip to a north-up raster of sample-centred cells
    transform = north_up_transform(x0, y0, dx, dy, ny)
    rings = [
        [np.asarray(ring)[:-1] for ring in geometry["coordinates"]]
        for geometry, value in shapes(patch[::-1], mask=patch[::-1] > 0, transform=transform)
        if value == 1
    ]
    if len(rings) != 1:
        raise SystemExit(f"the release patch in window {window} is not one polygon")
    return rings[0]


def contour_line(
    z: np.ndarray, x0: float, y0: float, dx: float, dy: float, level: float, window: tuple
) -> np.ndarray:
    """(n, 3) vertices of the longest piece of the ``level`` contour inside ``window``, one
    about every :data:`VERTEX_SPACING` m."""
    import contourpy

    ny, nx = z.shape
    x = x0 + dx * np.arange(nx)
    y = y0 + dy * np.arange(ny)
    x_min, y_min, x_max, y_max = window
    best = np.empty((0, 2))
    for line in contourpy.contour_generator(x, y, np.ma.masked_invalid(z)).lines(level):
        inside = (
            (line[:, 0] >= x_min)
            & (line[:, 0] <= x_max)
            & (line[:, 1] >= y_min)
            & (line[:, 1] <= y_max)
        )
        # split into runs of consecutive vertices inside the window
        edges = np.flatnonzero(np.diff(np.r_[0, inside.astype(int), 0]))
        for start, stop in zip(edges[::2], edges[1::2], strict=True):
            piece = line[start:stop]
            if _length(piece) > _length(best):
                best = piece
    if best.shape[0] < 2:
        raise SystemExit(f"no {level} m contour inside window {window}")
    along = np.r_[0.0, np.cumsum(np.hypot(*np.diff(best, axis=0).T))]
    count = max(2, int(np.rint(along[-1] / VERTEX_SPACING)) + 1)
    at = np.linspace(0.0, along[-1], count)
    xs, ys = np.interp(at, along, best[:, 0]), np.interp(at, along, best[:, 1])
    return np.column_stack([xs, ys, np.full(count, level)])


def _length(line: np.ndarray) -> float:
    return float(np.hypot(*np.diff(line, axis=0).T).sum()) if line.shape[0] > 1 else 0.0


def write_site(out: Path, source: Path | None = None) -> list[Path]:
    """Write dem.tif (from ``source``, else the one in ``out``), release.gpkg and barrier.gpkg
    into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    dem = crop_source(source, out) if source is not None else out / "dem.tif"
    if not dem.is_file():
        raise SystemExit(f"{dem} does not exist: give --source (README.md says where to get it)")
    grid = read_raster(dem)
    z, x0, y0, dx, dy = grid.values, grid.x0, grid.y0, grid.dx, grid.dy
    names = list(RELEASE)
    release = write_polygons(
        out / "release.gpkg",
        [release_polygon(z, x0, y0, dx, dy, RELEASE[name][0]) for name in names],
        {"name": names, "frequency": [RELEASE[name][1] for name in names]},
        crs=CRS,
    )
    lines = [contour_line(z, x0, y0, dx, dy, level, window) for _, level, window in (NET, LINE)]
    barrier = write_lines(out / "barrier.gpkg", lines, {"name": [NET[0], LINE[0]]}, crs=CRS)
    return [dem, release, barrier]


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
        "--source",
        type=Path,
        default=None,
        help="AvaFrame's avaHit.asc, cropped into dem.tif (default: use the folder's dem.tif)",
    )
    args = parser.parse_args()
    if args.source is None and args.out.resolve() != here and (here / "dem.tif").is_file():
        args.out.mkdir(parents=True, exist_ok=True)
        shutil.copy(here / "dem.tif", args.out / "dem.tif")
    for path in write_site(args.out, args.source):
        print(f"wrote {path}")
    if args.out.resolve() != here:
        shutil.copy(here / "site.toml", args.out / "site.toml")
        print(f"wrote {args.out / 'site.toml'}")


if __name__ == "__main__":
    main()
