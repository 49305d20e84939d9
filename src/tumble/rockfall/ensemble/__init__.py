"""Rockfall ensembles: many rocks on one terrain, a compiled parallel driver, chunks that resume.

One job per module:

* :mod:`~tumble.rockfall.ensemble.kernels`: the compiled per-rock loop over a chunk (``prange``);
* :mod:`~tumble.rockfall.ensemble.record`: what the kernel records of each rock, and the
  bookkeeping of one step;
* :mod:`~tumble.rockfall.ensemble.teams` and :mod:`~tumble.rockfall.ensemble.lanes`: the rocks
  of a chunk stepped in teams, their free flights in SIMD lanes (the kernel's path where the run
  allows it);
* :mod:`~tumble.rockfall.ensemble.driver`: :class:`Ensemble`, the shared model and the rocks'
  initial states, one chunk at a time;
* :mod:`~tumble.rockfall.ensemble.chunks`: chunk files, resume, local or Dask execution;
* :mod:`~tumble.rockfall.ensemble.cluster`: Dask (``tumble[cluster]``);
* :mod:`~tumble.rockfall.ensemble.cells`: a chunk's per-cell reduction and its merge;
* :mod:`~tumble.rockfall.ensemble.reduce`: chunks merged as they finish, statistics and the
  per-rock table;
* :mod:`~tumble.rockfall.ensemble.rasters`: hazard rasters on the DEM grid.

Random numbers are drawn before the kernel, one stream per rock (:mod:`tumble.rockfall.release`),
nothing is accumulated across rocks inside the parallel loop, sums over rocks run in rock order
and the per-cell accumulators merge with integer sums and maxima only: the results are
bit-identical for any number of threads, any chunk size, and on Dask.

>>> from tumble.rockfall import Rock, Soil, Terrain
>>> from tumble.rockfall.ensemble import Ensemble
>>> from tumble.rockfall.release import Release
>>> terrain = Terrain.scenario("slope40")
>>> states = Release.for_scenario("slope40").draw(terrain, 10, seed=1)
>>> result = Ensemble(terrain, Rock.eota221(mass=780.0), Soil.preset("medium"), states).run()
"""

from tumble.rockfall.ensemble.chunks import ChunkRun, chunk_path, read_chunk, run_chunks
from tumble.rockfall.ensemble.driver import (
    CHUNK_SIZE,
    ENSEMBLE_OPTIONS,
    SAMPLE_EVERY,
    Ensemble,
)
from tumble.rockfall.ensemble.end_of_run import summary_line
from tumble.rockfall.ensemble.rasters import RASTER_INFO, RASTERS, RasterInfo, Rasters
from tumble.rockfall.ensemble.reduce import EnsembleResult, RunReduction, reduce_chunks

__all__ = [
    "CHUNK_SIZE",
    "ENSEMBLE_OPTIONS",
    "RASTERS",
    "RASTER_INFO",
    "SAMPLE_EVERY",
    "ChunkRun",
    "Ensemble",
    "EnsembleResult",
    "RasterInfo",
    "Rasters",
    "RunReduction",
    "chunk_path",
    "read_chunk",
    "reduce_chunks",
    "run_chunks",
    "summary_line",
]
