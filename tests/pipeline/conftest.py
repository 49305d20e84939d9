"""Fixtures of the run-folder readers' tests: a small site in a projected CRS (MGI / Austria GK
West, negative eastings) with two release areas, and a run of it that keeps every rock's visits
and its whole trajectory."""

from __future__ import annotations

import math

import numpy as np
import pyarrow.parquet as pq
import pytest
import rasterio

from tumble.io.run_folder import RunPaths
from tumble.io.vectors import write_polygons
from tumble.pipeline import RockfallRun
from tumble.rockfall import Terrain

#: a slope in MGI / Austria GK West (EPSG:31254): the run works in the DEM's coordinates
X0, Y0 = -8400.0, 194850.0
N_ROCKS = 24
SETTINGS = {"rocks": N_ROCKS, "seed": 3, "t_max": 6.0, "run.chunk_size": 7}
OVERRIDES = ["output.figures=false", "output.visits=true"]
#: every rock kept with every step: the independent account of its cells and energies
KEEP_ALL = [f"output.trajectories={N_ROCKS}", "output.trajectory_every=1"]


def make_site(directory):
    """A 35 degree slope of 121 x 101 cells of 1 m with two release areas, south and north."""
    x = np.arange(121.0)
    z = np.maximum(80.0 - x, 0.0) * math.tan(math.radians(35.0)) + 0.02 * x
    terrain = Terrain.from_array(
        np.broadcast_to(z, (101, 121)), x0=X0, y0=Y0, dx=1.0, crs="EPSG:31254"
    )
    terrain.write(directory / "dem.tif")

    def square(x0, y0):
        return [np.array([[x0, y0], [x0 + 8, y0], [x0 + 8, y0 + 8], [x0, y0 + 8]])]

    write_polygons(
        directory / "areas.gpkg",
        [square(X0 + 5, Y0 + 25), square(X0 + 5, Y0 + 65)],
        {"name": np.array(["south", "north"], dtype=object)},
        crs="EPSG:31254",
    )
    return {
        "dem": str(directory / "dem.tif"),
        "release.areas": str(directory / "areas.gpkg"),
        "release.name_field": "name",
    }


def _site_run(site, overrides=(), **settings):
    return RockfallRun.from_config(
        settings={**site, **SETTINGS, **settings}, overrides=[*OVERRIDES, *overrides]
    )


@pytest.fixture(scope="session")
def visit_site(tmp_path_factory):
    """The site's settings (DEM, release areas): a run of it keeps its visits."""
    return make_site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def site_run():
    """``site_run(site, overrides, **settings)``: the RockfallRun of the site with
    output.visits on."""
    return _site_run


@pytest.fixture(scope="session")
def visits_folder(visit_site, tmp_path_factory):
    """The site run with its visits and every rock's trajectory kept at every step."""
    out = tmp_path_factory.mktemp("runs") / "kept"
    _site_run(visit_site, KEEP_ALL).run(out)
    return RunPaths(out)


def trajectory_visits(paths):
    """``{(rock, cell): largest kinetic energy J}`` from the kept trajectories: the pixel of the
    centre after every step (the release state, row t = 0, is before the first step)."""
    t = pq.read_table(paths.trajectories).to_pydict()
    with rasterio.open(paths.dem) as src:
        transform, (ny, nx) = src.transform, src.shape
    rock = np.asarray(t["rock"])
    x, y = np.asarray(t["x"]), np.asarray(t["y"])
    after = np.asarray(t["t"]) > 0.0
    # the pixel that holds the point, as a GIS finds it from the GeoTIFF's transform
    col = np.floor((x - transform.c) / transform.a).astype(np.int64)
    row = np.floor((y - transform.f) / transform.e).astype(np.int64)
    inside = after & (col >= 0) & (col < nx) & (row >= 0) & (row < ny)
    cell = (ny - 1 - row) * nx + col
    energy = np.asarray(t["kinetic_energy_J"])
    out: dict[tuple[int, int], float] = {}
    for k, c, e in zip(rock[inside], cell[inside], energy[inside], strict=True):
        key = (int(k), int(c))
        out[key] = max(out.get(key, -np.inf), float(e))
    return out


@pytest.fixture(scope="session")
def kept_visits(visits_folder):
    """``{(rock, cell): largest kinetic energy J}`` of the site run, from its trajectories."""
    return trajectory_visits(visits_folder)
