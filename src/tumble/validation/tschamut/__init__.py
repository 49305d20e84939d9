"""The Tschamut 2014 rockfall tests: a held-out check of the soil categories, never tuned on.

The tests (Volkwein et al. 2018) released natural blocks of 40-79 kg down a meadow slope near
Tschamut (Graubuenden, CH) and tracked them with a local positioning system (LPS). The data set is
EnviDat "Tschamut 2014" (doi:10.16904/envidat.34, ODbL/DbCL). tumble does not ship it: this package
reads a directory in the processed format below, which the open project rust_rockfall
(github.com/ofuhrer/rust_rockfall, ``scripts/preprocess_datasets.py``) writes from the EnviDat
files ``all_LPS_splined.txt`` and ``OverviewAllTests.txt``:

* ``release_points.csv``: one row per run, ``trajectory_id``, ``x_m``, ``y_m``, ``z_m`` (the
  block's centre: terrain proxy height plus the block's equivalent radius), ``ground_z_m``,
  ``vx_mps``, ``vy_mps``, ``vz_mps`` (the velocity of the first tracked sample), ``block_id``,
  ``mass_kg``, ``radius_m``; the release is the first sample of the tracked trajectory;
* ``observed_deposition.csv``: the same ids, the stop point ``x_m``, ``y_m``, ``z_m`` (the last
  tracked sample, z again terrain proxy plus radius), ``release_x_m``, ``release_y_m``,
  ``release_z_m`` and ``observed_runout_m``, the horizontal distance from release to stop
  (checked here against the coordinates, :data:`RUNOUT_TOLERANCE`);
* ``block_metadata.csv``: ``block_id``, ``name``, ``mass_kg``, ``radius_m`` (equivalent sphere),
  ``size_x_m``, ``size_y_m``, ``size_z_m`` (the measured principal lengths);
* ``terrain.asc``: an ESRI ASCII grid in the local LPS frame (no CRS), the producer's proxy of
  the slope: a trend plane plus inverse-distance-weighted residuals of the LPS heights. It is not
  a surveyed DEM. Its producer samples height ``(col, row)`` at ``xllcorner + col cellsize``,
  ``yllcorner + row cellsize`` (the corner, not the cell centre of the ESRI convention);
  :func:`read_terrain` reads it so, and :func:`load` reports how far the bilinear terrain lies
  from the data's own ``ground_z_m`` at the release and stop points.

Simulation (:func:`run_category`): each run is released from its measured release point with its
measured velocity (no spin: none is given), ``orientations`` times, each time in a uniformly random
orientation from the rock's own stream (``SeedSequence(seed, spawn_key=(k,))``, rock
``k = run orientations + j``), its centre above the release point and its lowest point
:data:`RELEASE_CLEARANCE` above the terrain (the exact hull clearance,
:mod:`tumble.rockfall.clearance`). The block is a box of the measured principal lengths carrying
the measured mass (``shape="box"``; the blocks are irregular and the box is their bounding box,
so the density it implies, :attr:`TschamutBlock.box_density`, is below that of rock), or the
EOTA111 shape with the measured mass at :data:`EOTA_DENSITY` (``shape="eota111"``), or natural
hulls (``shape="natural"``): the four photogrammetric blocks of the Authume tests
(:data:`NATURAL_HULLS`) stretched along their principal axes to the measured lengths, carrying the
measured mass (2170-3780 kg/m^3 for these blocks, where the box implies 1350-1575), orientation
``j`` of a run taking hull ``j mod 4``. The soil is
one category of :data:`tumble.rockfall.soil.CATALOGUE` by name, everywhere; with ``uncertainty``
``"sets"`` or ``"category"`` each rock draws its parameters from its soil stream exactly as a run
with ``soil.uncertainty`` does (:mod:`tumble.rockfall.site.soil_uncertainty`). The rocks run
through :class:`tumble.rockfall.ensemble.Ensemble`.

Metrics (:func:`category_metrics`): run-out = horizontal distance release to stop (the centre of
mass); the ratio of the simulated to the measured median run-out; the two-sample
Kolmogorov-Smirnov test of the run-out; the share of simulated rocks stopping within
:data:`EARLY_STOP_DISTANCES` of their release; the rocks that left the terrain or timed out
(counted apart; their run-out, a lower bound, stays in the sample, as in the Authume
validation), those that ended in a numerical failure (counted, left out); the energy-line (reach)
angle ``atan(drop / horizontal distance)`` of the centre of mass, measured and simulated.

Held-out discipline: no parameter of tumble is fitted to these data.

References: A. Volkwein et al., Repetitive Rockfall Trajectory Testing, Geosciences 8 (2018) 88,
doi:10.3390/geosciences8030088. Data: doi:10.16904/envidat.34.
"""

from tumble.validation.tschamut.data import (
    BLOCK_COLUMNS,
    BLOCK_FILE,
    DATA_ENV,
    DATA_SOURCE,
    DEPOSITION_COLUMNS,
    DEPOSITION_FILE,
    EOTA_DENSITY,
    NATURAL_HULLS,
    RELEASE_COLUMNS,
    RELEASE_FILE,
    RUNOUT_TOLERANCE,
    SHAPES,
    TERRAIN_FILE,
    TschamutBlock,
    TschamutData,
    data_directory,
    horizontal_distance,
    load,
    reach_angle,
    read_terrain,
)
from tumble.validation.tschamut.runs import (
    ANGLE_PERCENTILES,
    CHUNK_ROCKS,
    EARLY_STOP_DISTANCES,
    PLACEMENTS,
    RELEASE_CLEARANCE,
    SCHEMES,
    T_MAX,
    CategoryRun,
    angle_summary,
    category_metrics,
    measured_metrics,
    releases,
    run_category,
    stop_columns,
)

__all__ = [
    "ANGLE_PERCENTILES",
    "BLOCK_COLUMNS",
    "BLOCK_FILE",
    "CHUNK_ROCKS",
    "DATA_ENV",
    "DATA_SOURCE",
    "DEPOSITION_COLUMNS",
    "DEPOSITION_FILE",
    "EARLY_STOP_DISTANCES",
    "EOTA_DENSITY",
    "NATURAL_HULLS",
    "PLACEMENTS",
    "RELEASE_CLEARANCE",
    "RELEASE_COLUMNS",
    "RELEASE_FILE",
    "RUNOUT_TOLERANCE",
    "SCHEMES",
    "SHAPES",
    "TERRAIN_FILE",
    "T_MAX",
    "CategoryRun",
    "TschamutBlock",
    "TschamutData",
    "angle_summary",
    "category_metrics",
    "data_directory",
    "horizontal_distance",
    "load",
    "measured_metrics",
    "reach_angle",
    "read_terrain",
    "releases",
    "run_category",
    "stop_columns",
]
