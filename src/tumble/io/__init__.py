"""Files in and out: result directories written atomically, tables, provenance, DEMs and rasters,
GeoPackage vectors."""

from tumble.io.dem import RASTER_SUFFIXES, RasterGrid, read_raster, write_raster
from tumble.io.mesh import TriangleMesh, read_mesh, read_points
from tumble.io.provenance import provenance
from tumble.io.results import ResultDir, write_csv
from tumble.io.vectors import read_lines, write_lines, write_points

__all__ = [
    "RASTER_SUFFIXES",
    "RasterGrid",
    "ResultDir",
    "TriangleMesh",
    "provenance",
    "read_lines",
    "read_mesh",
    "read_points",
    "read_raster",
    "write_csv",
    "write_lines",
    "write_points",
    "write_raster",
]
