"""What the energy-line record of a run (:mod:`tumble.rockfall.hazard.energy_line`) takes from
the run's inputs: its release places as one geometry (the record keeps the rocks and cells
beyond them), and on a built-in synthetic terrain what the terrain reproduces and why its reach
differs from field slopes (no comparison with field records there)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tumble.rockfall.hazard.energy_line import energy_line_record
from tumble.rockfall.release import Release
from tumble.rockfall.release.polygons import region
from tumble.rockfall.site.areas import ReleaseAreas


def release_places(release: Release) -> Any:
    """Every release place of ``release`` as one shapely geometry in the DEM's CRS: its point,
    line or polygon, its release areas (each area's rings by the even-odd rule) or the pixels of
    a source raster's releasing cells."""
    import shapely

    areas = release.areas
    if areas is not None:
        # the release areas a run reads are the site's (their rings or cells)
        assert isinstance(areas, ReleaseAreas)
        cells = areas.cells
        if cells is not None:
            boxes = shapely.box(cells[:, 0], cells[:, 2], cells[:, 1], cells[:, 3])
            return shapely.union_all(boxes)
        return shapely.union_all([region(area.rings) for area in areas.areas])
    if release.point is not None:
        return shapely.Point(release.point)
    if release.line is not None:
        return shapely.LineString(release.line)
    assert release.polygon is not None  # Release keeps exactly one place
    return region([np.asarray(release.polygon, dtype=np.float64)])


def scenario_reach(scenario: str) -> str:
    """What a run on the built-in terrain ``scenario`` reproduces and why its reach differs from
    field slopes."""
    if scenario == "slope40":
        from tumble.validation.slope40 import REACH

        return REACH
    return (
        f"{scenario} is a synthetic terrain (tumble.rockfall.scenarios): its planes have no "
        "talus, roughness, vegetation or counter-slope, so the rocks' reach on it is not that "
        "of field slopes; the comparison with field records (27.5 degrees and more, Evans & "
        "Hungr 1993) and its warning belong to runs on real terrain (a DEM)"
    )


def run_energy_line(
    result: Any, terrain: Any, release: Release, scenario: str | None
) -> dict[str, Any]:
    """``summary.json["energy_line"]`` of a run's ``result`` on ``terrain`` from ``release``:
    beyond its release places, compared with field records on a DEM (``scenario`` None) and
    with what the built-in terrain ``scenario`` reproduces otherwise."""
    reproduction = None if scenario is None else scenario_reach(scenario)
    return energy_line_record(
        result.rasters, terrain, result.rocks, release_places(release), reproduction
    )
