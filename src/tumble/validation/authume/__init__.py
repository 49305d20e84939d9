"""The Authume quarry full-scale rockfall tests, and simulations of them compared with the field.

The tests (Garcia et al. 2022, Bourrier et al. 2021; ``dataset/README.md``) released 41
blocks on profile P1 and 48 on P2 and surveyed where they stopped. This package reads the field
data, builds the terrain and the releases, simulates the same releases with the engine and
compares the stop points:

* :mod:`~tumble.validation.authume.data`: the data directory, the frame conversion (y up to
  z up), drop points, measured stop points, release orientations, the profiles' reference lines
  and the four block shapes;
* :mod:`~tumble.validation.authume.terrain`: the three terrain meshes rasterised into one DEM
  with a zone raster;
* :mod:`~tumble.validation.authume.releases`: releases on a profile (drop point, orientation,
  shape, scale, mass per rock; the drop points' distance beyond the crest) and the scenarios
  ``authume-p1``, ``authume-p2``;
* :mod:`~tumble.validation.authume.soils`: the per-zone soil table, the vegetation drag scaled by
  the block's projected area, and the calibrated numbers;
* :mod:`~tumble.validation.authume.runs`: the releases of a profile run by the ensemble driver;
* :mod:`~tumble.validation.authume.metrics`: run-out and lateral Wasserstein distances, the
  Kolmogorov-Smirnov test of the run-out, the stop envelope;
* :mod:`~tumble.validation.authume.calibration`: the calibration on P1 (P2 is the held-out
  check), its refinement and the bootstrap of its equivalent sets;
* :mod:`~tumble.validation.authume.reference`: the discrete element trajectories published with
  the data (Rockable), their end points scored with the same metrics.

References: B. Garcia, P. Villard, V. Richefeu, D. Daudon, Eng. Geol. 310 (2022) 106855.
F. Bourrier, D. Toe, B. Garcia, J. Baroth, S. Lambert, Landslides 18 (2021) 639-654.
"""

from tumble.validation.authume.calibration import (
    BOOTSTRAP_RESAMPLES,
    EQUIVALENCE_SHARE,
    KS_LEVEL,
    Calibration,
    bootstrap_shares,
    calibrate,
    calibration_points,
    screen_for_refinement,
    select_calibration,
    stored_calibration,
)
from tumble.validation.authume.data import (
    BLOCK_NAMES,
    DATA_ENV,
    DATA_TO_TUMBLE,
    DENSITY,
    LAMBERT93_SHIFT,
    PACKAGE_DATA,
    PROFILES,
    Q_DATA_TO_TUMBLE,
    AuthumeBlock,
    MeasuredEndpoints,
    ProfileGeometry,
    authume_blocks,
    data_directory,
    drop_points,
    measured_endpoints,
    orientations,
    profile_coordinates,
    profile_geometry,
    to_tumble_frame,
)
from tumble.validation.authume.metrics import (
    ENVELOPE_BANDWIDTH,
    ENVELOPE_CONTENT,
    StopEnvelope,
    fraction_inside,
    kolmogorov_smirnov,
    pooled_metrics,
    profile_metrics,
    sample_metrics,
    stop_envelope,
    wasserstein,
)
from tumble.validation.authume.reference import (
    MOVING_SPEED,
    REFERENCE_COLUMNS,
    REFERENCE_FILE,
    ReferenceEndpoints,
    extract_reference_endpoints,
    reference_endpoints,
    reference_file,
    reference_metrics,
)
from tumble.validation.authume.releases import (
    CREST_DROP,
    CREST_SEARCH,
    N_CYCLE,
    SCENARIO_NAMES,
    SCENARIOS,
    AuthumeReleases,
    AuthumeScenario,
    authume_releases,
    authume_scenario,
    crest_offsets,
)
from tumble.validation.authume.runs import (
    CHUNK_ROCKS,
    ROCKS_PER_PROFILE,
    T_MAX,
    ProfileRun,
    run_profile,
)
from tumble.validation.authume.soils import (
    BASE_FRICTION,
    CALIBRATED,
    CALIBRATION_COMMAND,
    CALIBRATION_EQUIVALENT,
    CALIBRATION_GRID,
    CALIBRATION_GRIDS,
    CALIBRATION_SEEDS,
    CALIBRATION_TABLE,
    REFINE_SE_FACTOR,
    REFINE_SEEDS,
    SCAR_CALIBRATION_GRID,
    SCAR_CS,
    SCAR_ZONES,
    VEGETATION_HEIGHT,
    VEGETATION_LEVER,
    VEGETATION_REFERENCE_VOLUME,
    ZONE_ROWS,
    ZONES,
    SoilParameters,
    vegetation_scale,
    zone_soil,
)
from tumble.validation.authume.terrain import (
    ZONE_IDS,
    ZONE_NAMES,
    ZONE_OUTSIDE,
    TinRaster,
    authume_raster,
    authume_terrain,
    rasterise_triangles,
    terrain_triangles,
)

__all__ = [
    "BASE_FRICTION",
    "BLOCK_NAMES",
    "BOOTSTRAP_RESAMPLES",
    "CALIBRATED",
    "CALIBRATION_COMMAND",
    "CALIBRATION_EQUIVALENT",
    "CALIBRATION_GRID",
    "CALIBRATION_GRIDS",
    "CALIBRATION_SEEDS",
    "CALIBRATION_TABLE",
    "CHUNK_ROCKS",
    "CREST_DROP",
    "CREST_SEARCH",
    "DATA_ENV",
    "DATA_TO_TUMBLE",
    "DENSITY",
    "ENVELOPE_BANDWIDTH",
    "ENVELOPE_CONTENT",
    "EQUIVALENCE_SHARE",
    "KS_LEVEL",
    "LAMBERT93_SHIFT",
    "MOVING_SPEED",
    "N_CYCLE",
    "PACKAGE_DATA",
    "PROFILES",
    "Q_DATA_TO_TUMBLE",
    "REFERENCE_COLUMNS",
    "REFERENCE_FILE",
    "REFINE_SEEDS",
    "REFINE_SE_FACTOR",
    "ROCKS_PER_PROFILE",
    "SCAR_CALIBRATION_GRID",
    "SCAR_CS",
    "SCAR_ZONES",
    "SCENARIOS",
    "SCENARIO_NAMES",
    "T_MAX",
    "VEGETATION_HEIGHT",
    "VEGETATION_LEVER",
    "VEGETATION_REFERENCE_VOLUME",
    "ZONES",
    "ZONE_IDS",
    "ZONE_NAMES",
    "ZONE_OUTSIDE",
    "ZONE_ROWS",
    "AuthumeBlock",
    "AuthumeReleases",
    "AuthumeScenario",
    "Calibration",
    "MeasuredEndpoints",
    "ProfileGeometry",
    "ProfileRun",
    "ReferenceEndpoints",
    "SoilParameters",
    "StopEnvelope",
    "TinRaster",
    "authume_blocks",
    "authume_raster",
    "authume_releases",
    "authume_scenario",
    "authume_terrain",
    "bootstrap_shares",
    "calibrate",
    "calibration_points",
    "crest_offsets",
    "data_directory",
    "drop_points",
    "extract_reference_endpoints",
    "fraction_inside",
    "kolmogorov_smirnov",
    "measured_endpoints",
    "orientations",
    "pooled_metrics",
    "profile_coordinates",
    "profile_geometry",
    "profile_metrics",
    "rasterise_triangles",
    "reference_endpoints",
    "reference_file",
    "reference_metrics",
    "run_profile",
    "sample_metrics",
    "screen_for_refinement",
    "select_calibration",
    "stop_envelope",
    "stored_calibration",
    "terrain_triangles",
    "to_tumble_frame",
    "vegetation_scale",
    "wasserstein",
    "zone_soil",
]
