"""``tumble rockfall sources RUN --at X,Y | --polygon FILE``: the release areas and rocks that
reached a place, with their energies there.

The rocks and energies are compared with an independent account of the same rocks: their
trajectories kept at every step (conftest ``kept_visits``: each rock simulated again by itself,
its centre put in its GeoTIFF pixel, its energy maximised per cell in numpy), and their count at a
cell with the run's ``reach_probability * n_rocks``. The site is in MGI / Austria GK West
(negative eastings): every place is given in the DEM's coordinates."""

from __future__ import annotations

import csv
import json
from collections import defaultdict

import numpy as np
import pytest
import rasterio
from scipy.stats import beta

from tumble.cli.main import main
from tumble.errors import DataError, DemError
from tumble.io.run_folder import RunPaths
from tumble.io.vectors import transform_xy, write_polygons
from tumble.pipeline.sources import NO_VISITS, sources_at


def cell_centre(paths, cell):
    """The DEM coordinates of the centre of cell ``j nx + i``."""
    with rasterio.open(paths.dem) as src:
        t, nx = src.transform, src.width
    i, j_north = cell % nx, src.height - 1 - cell // nx
    return t.c + (i + 0.5) * t.a, t.f + (j_north + 0.5) * t.e


def by_cell(kept_visits):
    cells = defaultdict(dict)
    for (rock, cell), energy in kept_visits.items():
        cells[cell][rock] = energy
    return cells


def rock_sources(paths):
    with paths.deposits.open() as f:
        return {int(r["rock"]): r["source"] for r in csv.DictReader(f)}


def busiest(kept_visits):
    """The cell most rocks passed (the smallest such cell)."""
    cells = by_cell(kept_visits)
    return min(cells, key=lambda c: (-len(cells[c]), c))


def test_rocks_at_a_point_are_those_of_the_trajectories(visits_folder, kept_visits):
    """At the centre of the cell most rocks passed: the listed rocks are those whose kept
    trajectory passed the cell, each with its largest energy there (1e-9 relative), their count
    is reach_probability * n_rocks, and each release area counts its own rocks."""
    cell = busiest(kept_visits)
    expected = by_cell(kept_visits)[cell]
    assert len(expected) >= 3
    record = sources_at(visits_folder.path, at=cell_centre(visits_folder, cell))
    assert record["reached"] and record["cells"] == 1 and record["note"] is None
    rocks = record["rocks"]
    assert [r["rock"] for r in rocks] == sorted(expected)
    np.testing.assert_allclose(
        [r["kinetic_energy_kJ"] for r in rocks],
        [expected[k] * 1e-3 for k in sorted(expected)],
        rtol=1e-9,
    )
    n_rocks = json.loads(visits_folder.summary.read_text())["n_rocks"]
    assert len(rocks) == pytest.approx(record["values"]["reach_probability"] * n_rocks, abs=1e-5)
    assert all(r["cells"] == 1 for r in rocks)
    source = rock_sources(visits_folder)
    assert all(r["source"] == source[r["rock"]] for r in rocks)
    for s in record["sources"]:
        mine = [k for k in expected if source[k] == s["name"]]
        assert s["rocks_reaching"] == len(mine) > 0
        assert s["kinetic_energy_max_kJ"] == pytest.approx(max(expected[k] for k in mine) * 1e-3)
        assert s["rocks"] == sum(v == s["name"] for v in source.values())
    assert sum(s["rocks_reaching"] for s in record["sources"]) == len(rocks)
    assert record["values"]["kinetic_energy_max"] == pytest.approx(
        max(expected.values()) * 1e-3, rel=1e-6
    )


def square_cells(paths, cell, half):
    """The cells of the (2 half + 1)^2 block around ``cell`` and a square whose edges lie a
    quarter of a pixel inside the block's outer pixels (so it touches exactly those)."""
    with rasterio.open(paths.dem) as src:
        nx, dx = src.width, src.transform.a
    x, y = cell_centre(paths, cell)
    cells = [cell + dj * nx + di for dj in range(-half, half + 1) for di in range(-half, half + 1)]
    r = (half + 0.25) * dx
    ring = np.array([[x - r, y - r], [x + r, y - r], [x + r, y + r], [x - r, y + r]])
    return cells, ring


@pytest.mark.parametrize("crs", ["EPSG:31254", "EPSG:4326"], ids=["dem_crs", "wgs84"])
def test_rocks_in_a_polygon_are_those_of_the_trajectories(
    visits_folder, kept_visits, tmp_path, crs
):
    """A polygon file (in the DEM's CRS, or in WGS 84 and transformed to it) over a 3 x 3 block
    of cells lists every rock that passed one of them, with its largest energy over them and the
    number of those cells it passed, as the kept trajectories give them."""
    cells, ring = square_cells(visits_folder, busiest(kept_visits), 1)
    if crs != "EPSG:31254":
        ring = np.column_stack(transform_xy(ring[:, 0], ring[:, 1], "EPSG:31254", crs))
    path = write_polygons(tmp_path / "place.gpkg", [[ring]], {"name": ["house"]}, crs=crs)
    record = sources_at(visits_folder.path, polygon=path)
    assert record["cells"] == 9
    cells_of = by_cell(kept_visits)
    expected: dict[int, list[float]] = defaultdict(list)
    for c in cells:
        for rock, energy in cells_of.get(c, {}).items():
            expected[rock].append(energy)
    rocks = record["rocks"]
    assert [r["rock"] for r in rocks] == sorted(expected)
    np.testing.assert_allclose(
        [r["kinetic_energy_kJ"] for r in rocks],
        [max(expected[k]) * 1e-3 for k in sorted(expected)],
        rtol=1e-9,
    )
    assert [r["cells"] for r in rocks] == [len(expected[k]) for k in sorted(expected)]
    # the place's own reach probability and its Clopper-Pearson interval (scipy's beta)
    n = json.loads(visits_folder.summary.read_text())["n_rocks"]
    k = len(expected)
    assert k > max(len(cells_of.get(c, {})) for c in cells)  # more than the busiest cell's
    values = record["values"]
    assert values["reach_probability"] == pytest.approx(k / n, rel=1e-12)
    assert values["reach_probability_low"] == pytest.approx(beta.ppf(0.025, k, n - k + 1))
    assert values["reach_probability_high"] == pytest.approx(beta.ppf(0.975, k + 1, n - k))
    assert record["reach_probability_of"].startswith("the place")


def test_a_place_no_rock_reached(visits_folder, capsys):
    """A cell no rock passed: no rocks, no release area, reach probability 0 with the
    Clopper-Pearson upper bound of 0 of n (1 - 0.025^(1/n)); the command says so and exits 1."""
    with rasterio.open(visits_folder.raster("passing_count")) as src:
        passing = src.read(1, masked=True)
        row, col = np.argwhere(passing.mask)[0]
        x, y = src.xy(row, col)
    record = sources_at(visits_folder.path, at=(x, y))
    n = json.loads(visits_folder.summary.read_text())["n_rocks"]
    assert not record["reached"] and record["rocks"] == [] and record["sources"] == []
    assert record["values"]["reach_probability"] == 0.0
    assert record["values"]["reach_probability_high"] == pytest.approx(1 - 0.025 ** (1 / n))
    code = main(["rockfall", "sources", str(visits_folder.path), "--at", f"{x},{y}"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"no rock of the run reached it (0 of {n} rocks" in out


def test_nodata_cells_are_no_part_of_a_place(visits_folder, kept_visits, tmp_path):
    """The run's DEM with nodata at the busiest cell: a point there is refused as lying in a
    nodata area (as a release there is); a 3 x 3 block around it keeps its 8 other cells."""
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(visits_folder.path, copy)
    cell = busiest(kept_visits)
    paths = RunPaths(copy)
    with rasterio.open(paths.dem, "r+", IGNORE_COG_LAYOUT_BREAK="YES") as dst:
        heights = dst.read(1)
        nx, ny = dst.width, dst.height
        heights[ny - 1 - cell // nx, cell % nx] = dst.nodata if dst.nodata is not None else np.nan
        dst.write(heights, 1)
    with pytest.raises(DemError, match="nodata area of the DEM"):
        sources_at(copy, at=cell_centre(paths, cell))
    _, ring = square_cells(paths, cell, 1)
    path = write_polygons(tmp_path / "block.gpkg", [[ring]], {"name": ["b"]}, crs="EPSG:31254")
    assert sources_at(copy, polygon=path)["cells"] == 8


def test_a_place_off_the_dem_is_refused(visits_folder, tmp_path, capsys):
    """A point west of the DEM and a polygon wholly off it are refused with the DEM's extent
    (exit status 2 on the command line)."""
    with rasterio.open(visits_folder.dem) as src:
        b = src.bounds
    with pytest.raises(DemError, match="outside the DEM"):
        sources_at(visits_folder.path, at=(b.left - 1.0, b.bottom + 10.0))
    code = main(["rockfall", "sources", str(visits_folder.path), "--at", f"{b.left - 1.0},{b.top}"])
    assert code == 2
    assert f"x from {b.left:g} to {b.right:g}" in capsys.readouterr().err
    ring = np.array([[b.right + 5, b.bottom], [b.right + 9, b.bottom], [b.right + 9, b.top]])
    path = write_polygons(tmp_path / "off.gpkg", [[ring]], {"name": ["x"]}, crs="EPSG:31254")
    with pytest.raises(DemError, match="outside the DEM"):
        sources_at(visits_folder.path, polygon=path)
    code = main(["rockfall", "sources", str(visits_folder.path), "--polygon", str(path)])
    assert code == 2


def test_the_command_lists_the_rocks(visits_folder, kept_visits, capsys):
    """The printed listing: the number of rocks, the most energetic first with its energy, and
    --json gives the library's record."""
    cell = busiest(kept_visits)
    expected = by_cell(kept_visits)[cell]
    x, y = cell_centre(visits_folder, cell)
    args = ["rockfall", "sources", str(visits_folder.path), "--at", f"{x},{y}"]
    assert main([*args, "--rocks", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"  rocks that reached it: {len(expected)} (most energetic first)" in lines
    top = max(expected, key=expected.get)
    first = lines[
        lines.index(f"  rocks that reached it: {len(expected)} (most energetic first)") + 2
    ]
    assert first.split()[0] == str(top)
    assert float(first.split()[2]) == pytest.approx(expected[top] * 1e-3, abs=0.005)
    assert f"... and {len(expected) - 2} more" in "\n".join(lines)
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(
        json.dumps(sources_at(visits_folder.path, at=(x, y)))
    )


def test_a_run_without_visits_names_its_release_areas_and_says_how_to_list_rocks(
    visit_site, site_run, visits_folder, kept_visits, tmp_path, capsys
):
    """Without output.visits: the release areas come from the reach outlines (the same as those
    of the rocks of the run with visits, at the same cell), the rocks are None, and the note and
    the command say to run with output.visits = true."""
    out = tmp_path / "plain"
    site_run(visit_site, ["output.visits=false"]).run(out)
    assert not RunPaths(out).visits.exists()
    cell = busiest(kept_visits)
    at = cell_centre(visits_folder, cell)
    record = sources_at(out, at=at)
    assert record["rocks"] is None and record["note"] == NO_VISITS
    source = rock_sources(visits_folder)
    names = {source[k] for k in by_cell(kept_visits)[cell]}
    assert {s["name"] for s in record["sources"]} == names
    assert main(["rockfall", "sources", str(out), "--at", f"{at[0]},{at[1]}"]) == 0
    assert "output.visits = true" in capsys.readouterr().out


def test_bad_requests_are_refused(visits_folder, tmp_path):
    """Neither or both of a point and a polygon, a file without polygons, a folder that is not a
    finished run."""
    with pytest.raises(ValueError, match="not both or neither"):
        sources_at(visits_folder.path)
    empty = tmp_path / "empty.gpkg"
    from tumble.io.vectors import write_points

    write_points(empty, np.zeros((1, 3)), {"name": ["p"]}, crs="EPSG:31254")
    with pytest.raises(DataError):
        sources_at(visits_folder.path, polygon=empty)
    with pytest.raises(DataError, match="not a finished run"):
        sources_at(tmp_path, at=(0.0, 0.0))
