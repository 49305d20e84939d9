"""The report of a rockfall run: a page that parses and needs no network, warnings first, images
embedded or in the run folder, percentages that never round to 0 % or 100 %, maps with full
coordinates, units, only defined cells drawn, and a hillshade exaggeration from the relief."""

import math
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.text
import numpy as np
import pytest
from matplotlib.figure import Figure

from tumble.io.config import validate
from tumble.io.provenance import provenance
from tumble.io.toml_writer import toml_text
from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.rasters import RASTER_INFO, RASTERS
from tumble.rockfall.release import Release
from tumble.viz.relief import EXAGGERATION_RANGE, vertical_exaggeration
from tumble.viz.report_html import crs_unit, percent
from tumble.viz.report_maps import (
    MAPS,
    OPTIONAL_MAPS,
    Window,
    map_figure,
    map_window,
    round_length,
)
from tumble.viz.run_report import write_run_report

X0, Y0 = 2_600_000.0, 1_200_000.0  # Swiss LV95 (EPSG:2056), near Bern
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
WARNING = "12.5 % of the rocks left the DEM: the run-out is truncated; extend the DEM downslope"


def swiss_slope(nx: int = 60, ny: int = 40, dx: float = 2.0) -> Terrain:
    """A 35 degree slope descending to the east over 60 m, then a gently undulating run-out."""
    x = np.arange(nx) * dx
    y = np.arange(ny) * dx
    xx, yy = np.meshgrid(x, y)
    heights = 700.0 + np.maximum(60.0 - xx, 0.0) * math.tan(math.radians(35.0))
    heights += 0.5 * np.sin(xx / 9.0) * np.cos(yy / 7.0)
    return Terrain.from_array(heights, x0=X0, y0=Y0, dx=dx, crs="EPSG:2056")


def fake_run(terrain: Terrain) -> tuple[dict, dict, dict]:
    """Rasters defined in a band of rows 10..29 and columns 3..44, a per-rock table of 80 rocks
    and a summary as ``reduce_chunks`` writes it, with a warning, intervals and barriers."""
    ny, nx = terrain.shape
    jj, ii = np.mgrid[0:ny, 0:nx]
    band = (jj >= 10) & (jj < 30) & (ii >= 3) & (ii < 45)
    decay = np.exp(-(ii - 3) / 15.0)
    rasters = {name: np.full((ny, nx), np.nan) for name in RASTERS}
    rasters["passing_count"] = np.where(band, np.round(80 * decay), 0.0)
    rasters["reach_probability"] = rasters["passing_count"] / 80
    rasters["deposit_count"] = np.where(band & (ii > 35) & (jj % 4 == 0), 2.0, 0.0)
    for name in ("kinetic_energy_max", "kinetic_energy_mean", "kinetic_energy_p95"):
        rasters[name] = np.where(band, 300.0 * np.sin(np.pi * (ii - 3) / 42.0) + 1.0, np.nan)
    rasters["jump_height_max"] = np.where(band & (ii < 30), 2.5, np.nan)
    rasters["jump_height_p95"] = rasters["jump_height_max"]
    slope = math.cos(math.radians(35.0))
    rasters["jump_height_normal_max"] = rasters["jump_height_max"] * slope
    rasters["jump_height_normal_p95"] = rasters["jump_height_p95"] * slope
    rng = np.random.default_rng(1)
    release_y = Y0 + 2.0 * rng.uniform(10, 30, 80)
    rocks = {
        "release_x": np.full(80, X0 + 8.0),
        "release_y": release_y,
        "x": X0 + 2.0 * rng.uniform(30, 44, 80),
        "y": release_y,
    }
    stats = {"mean": 210.0, "std": 40.0, "p50": 215.0, "p95": 280.0, "max": 301.0}
    summary = {
        "n_rocks": 80,
        "scheme": "implicit",
        "dt": 0.002,
        "seed": 3,
        "t_max": 20.0,
        "warnings": [WARNING],
        "kinetic_energy_kJ": {
            "path": {"mean": 60.0, "std": 50.0, "samples": 9000},
            "rock_max": {**stats, "p95_ci": [262.25, 291.5]},
        },
        "velocity_ms": {"path": {"mean": 9.0, "std": 5.0, "samples": 9000}, "rock_max": stats},
        "rotational_velocity_rps": {"rock_max": stats},
        "jump_height_m": {"rock_max": stats},
        "runout_m": {"mean": 70.0, "std": 8.0, "p50": 71.0, "p95": 83.5, "max": 88.0},
        "lateral_spread_m": {"std": 6.0, "p95": 11.0},
        "fractions": {"stopped": 0.875, "left_domain": 0.125, "timed_out": 0.0, "failed": 0.0},
        "barriers": [
            {
                "name": "fence A",
                "kind": "net",
                "uphill": "left",
                "uphill_from": "release",
                "release_share_uphill": 0.97,
                "rocks_crossing": 996,
                "fraction_crossing": 0.996,
                "crossings_downslope": 1010,
                "crossings_upslope": 14,
                "kinetic_energy_kJ": {"p95": 250.0, "p95_ci": [240.0, 260.0]},
                "design": {"E_d_kJ": 300.0, "h_d_m": 2.1, "energy_ok": True, "height_ok": False},
            },
            {
                "name": "fence B",
                "kind": "line",
                "uphill": "right",
                "uphill_from": "configuration",
                "rocks_crossing": 500,
                "fraction_crossing": 0.5,
            },
        ],
        "classes": [{"class": "0.5-1 m3", "n_rocks": 50}, {"class": "1-2 m3", "n_rocks": 30}],
        "wall_time_s": 1.25,
    }
    return rasters, rocks, summary


class Page(HTMLParser):
    """Tags checked for nesting, images, warning boxes and their text."""

    def __init__(self, text: str):
        super().__init__()
        self.open: list[tuple[str, dict]] = []
        self.errors: list[str] = []
        self.images: list[str] = []
        self.boxes = 0
        self.warning_text = ""
        self.tags: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "img":
            self.images.append(attrs.get("src") or "")
        if "warnings" in (attrs.get("class") or "").split():
            self.boxes += 1
            self.tags.append("warnings")
        if tag not in VOID:
            self.open.append((tag, attrs))

    def handle_endtag(self, tag):
        if not self.open or self.open[-1][0] != tag:
            self.errors.append(f"</{tag}> closes {self.open[-1][0] if self.open else 'nothing'}")
        else:
            self.open.pop()

    def handle_data(self, data):
        if any("warnings" in (a.get("class") or "").split() for _, a in self.open):
            self.warning_text += data


def report(tmp_path: Path, summary: dict, figures=()) -> tuple[Path, str, Page]:
    terrain = swiss_slope()
    rasters, rocks, _ = fake_run(terrain)
    config = validate({"rocks": 80, "seed": 3, "release": {"line": [[8, 20], [8, 60]]}})
    path = write_run_report(
        tmp_path,
        summary=summary,
        terrain=terrain,
        rasters=rasters,
        rocks=rocks,
        config=config.model_dump(),
        provenance=provenance({"resolved": config.model_dump()}, {"simulation_s": 1.25}, 3),
        figures=figures,
    )
    text = path.read_text(encoding="utf-8")
    return path, text, Page(text)


def check_offline(directory: Path, text: str, page: Page) -> None:
    """Well nested, no URL, every image embedded or a file in the run folder."""
    assert page.errors == [] and page.open == []
    assert "http://" not in text and "https://" not in text
    assert page.images
    for src in page.images:
        if src.startswith("data:"):
            assert re.match(r"data:image/(png|jpeg|svg\+xml);base64,[A-Za-z0-9+/=]+$", src)
        else:
            assert not Path(src).is_absolute() and ".." not in Path(src).parts
            assert (directory / src).is_file(), src


def test_report_page_offline_with_warnings_first(tmp_path):
    terrain = swiss_slope()
    _, _, summary = fake_run(terrain)
    other = tmp_path / "figures" / "energy_map.png"
    other.parent.mkdir()
    fig = Figure(figsize=(2, 2))
    fig.add_subplot().plot([0, 1], [1, 0])
    fig.savefig(other)
    path, text, page = report(tmp_path, summary, figures=[Path("figures/energy_map.png")])

    assert path == tmp_path / "report.html"
    check_offline(tmp_path, text, page)
    assert page.boxes == 1 and WARNING in page.warning_text
    assert page.tags.index("warnings") < page.tags.index("h1")  # the box comes first
    for name in MAPS:
        assert (tmp_path / "figures" / f"report_{name}.png").is_file()
    assert (tmp_path / "figures" / "report_overview.png").is_file()
    # the overview, the maps, the optional maps of the rasters it has, and the other figure
    rasters = fake_run(terrain)[0]
    optional = [name for name in OPTIONAL_MAPS if name in rasters]
    for name in optional:
        assert (tmp_path / "figures" / f"report_{name}.png").is_file()
    assert len(page.images) == len(MAPS) + len(optional) + 2
    assert "figures/energy_map.png" in text
    # outcomes in percent, the interval beside the p95, the records as tables
    assert "87.5 %" in text and "12.5 %" in text
    assert re.search(r"280(\.0)?\s*<span class=\"ci\">\[262\.2, 291\.5\]</span>", text)
    assert "fence A" in text and "996 (99.6 %)" in text and "250 [240, 260]" in text
    assert "energy ok, height NOT ok" in text
    # the side the rocks come from, and the crossings both ways
    assert "rocks come from (side seen along the line)" in text
    assert "left (release 97 %)" in text and "right (given)" in text
    assert "1010 / 14" in text
    assert "0.5-1 m3" in text
    assert "[release]" in text and "EPSG:2056" in text


@pytest.mark.parametrize("warnings", [None, []])
def test_no_warnings_no_box(tmp_path, warnings):
    _, _, summary = fake_run(swiss_slope())
    if warnings is None:
        del summary["warnings"]
    else:
        summary["warnings"] = warnings
    _, text, page = report(tmp_path, summary)
    check_offline(tmp_path, text, page)
    assert page.boxes == 0 and 'class="warnings"' not in text


def test_figures_outside_the_run_folder_are_refused(tmp_path):
    _, _, summary = fake_run(swiss_slope())
    (tmp_path / "run").mkdir()
    (tmp_path / "elsewhere.png").write_bytes(b"")
    with pytest.raises(ValueError, match="not inside the run folder"):
        report(tmp_path / "run", summary, figures=[tmp_path / "elsewhere.png"])
    with pytest.raises(ValueError, match="does not exist"):
        report(tmp_path / "run", summary, figures=["figures/missing.png"])


@pytest.mark.parametrize(
    ("fraction", "text"),
    [
        (0.996, "99.6 %"),
        (1.0, "100 %"),
        (0.0004, "0.04 %"),
        (0, "0 %"),
        (0.0, "0 %"),
        (0.5, "50 %"),
        (0.125, "12.5 %"),
        (1 / 3, "33.333 %"),
        (0.99999, "99.999 %"),
        (0.9999999, "> 99.999 %"),
        (1e-7, "< 0.001 %"),
        (None, "n/a"),
        (math.nan, "n/a"),
    ],
)
def test_percent(fraction, text):
    assert percent(fraction) == text


def test_percent_is_never_0_or_100_unless_exact():
    for fraction in np.concatenate(
        [np.geomspace(1e-9, 1e-2, 50), 1 - np.geomspace(1e-9, 1e-2, 50)]
    ):
        assert percent(float(fraction)) not in ("0 %", "100 %", "0.000 %", "100.000 %")


def draw_map(name: str):
    terrain = swiss_slope()
    rasters, rocks, _ = fake_run(terrain)
    window = map_window(terrain, rasters, rocks)
    drawn = map_figure(terrain, name, rasters[name], window, rocks=rocks, n_rocks=80)
    drawn.figure.draw_without_rendering()
    return terrain, rasters, window, drawn


def test_map_axes_show_full_coordinates_in_the_crs_unit():
    *_, drawn = draw_map("kinetic_energy_max")
    ax = drawn.ax
    assert ax.get_xlabel() == "Easting (m)" and ax.get_ylabel() == "Northing (m)"
    for axis in (ax.xaxis, ax.yaxis):
        assert axis.get_major_formatter().get_offset() == ""
    eastings = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    northings = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert any(re.fullmatch(r"26000\d\d", t) for t in eastings), eastings
    assert any(re.fullmatch(r"12000\d\d", t) for t in northings), northings
    assert all("e" not in t.lower() for t in eastings + northings)


@pytest.mark.parametrize("name", list(MAPS))
def test_colour_bar_carries_the_unit(name):
    _, _, _, drawn = draw_map(name)
    label = drawn.colorbar.ax.get_ylabel()
    assert f"({RASTER_INFO[name].unit})" in label or f", {RASTER_INFO[name].unit})" in label
    assert MAPS[name][0] in label


def test_only_defined_cells_are_drawn():
    """NaN cells, and zero cells of probability and counts, are masked (transparent)."""
    for name in ("kinetic_energy_max", "jump_height_max", "reach_probability", "deposit_count"):
        _, rasters, w, drawn = draw_map(name)
        values = rasters[name][w.j0 : w.j1, w.i0 : w.i1]
        empty = ~np.isfinite(values)
        if name in ("reach_probability", "deposit_count"):
            empty |= values <= 0
        assert 0 < empty.sum() < empty.size
        image = drawn.ax.get_images()[1]
        assert np.array_equal(np.ma.getmaskarray(image.get_array()), empty), name


def test_map_window_is_the_reached_area_with_a_margin():
    terrain = swiss_slope()
    rasters, rocks, _ = fake_run(terrain)
    w = map_window(terrain, rasters, rocks)
    ny, nx = terrain.shape
    assert 0 <= w.j0 < 10 and 30 < w.j1 <= ny and 0 <= w.i0 < 3 and 45 < w.i1 < nx
    assert w.j0 <= 10 - 3 and w.i1 >= 45 + 3
    empty = {name: np.full(terrain.shape, np.nan) for name in RASTERS}
    assert map_window(terrain, empty, {}) == (0, ny, 0, nx)  # nothing reached: the whole DEM


def test_vertical_exaggeration_makes_the_95th_percentile_slope_45_degrees():
    low, high = EXAGGERATION_RANGE
    for slope, expected in ((45.0, 1.0), (30.0, math.sqrt(3.0)), (80.0, low), (2.0, high)):
        plane = Terrain.plane(slope, size=(40.0, 20.0), spacing=1.0)
        assert vertical_exaggeration(plane) == pytest.approx(expected, rel=1e-9), slope
    flat = Terrain.plane(0.0, size=(40.0, 20.0))
    assert vertical_exaggeration(flat) == high


def test_units_and_scale_bar_lengths():
    from rasterio.crs import CRS

    assert crs_unit(CRS.from_user_input("EPSG:2056")) == "m"
    assert crs_unit(CRS.from_user_input("EPSG:2229")) == "US ft"
    assert crs_unit(None) == "m"
    assert [round_length(v) for v in (0.7, 1.0, 3.9, 24.0, 99.0, 130.0)] == [
        0.5,
        1.0,
        2.0,
        20.0,
        50.0,
        100.0,
    ]


def test_configuration_block_is_toml():
    config = validate({"rocks": 80, "release": {"line": [[8, 20], [8, 60]], "height": 1.5}})
    dumped = config.model_dump()

    def without_none(value):
        if isinstance(value, dict):
            return {k: without_none(v) for k, v in value.items() if v is not None}
        if isinstance(value, (list, tuple)):
            return [without_none(v) for v in value]
        return value

    assert tomllib.loads(toml_text(dumped)) == without_none(dumped)


def test_report_of_a_real_ensemble(tmp_path):
    """A tiny ensemble on the Swiss slope: the summary, rasters and per-rock table of
    ``reduce_chunks`` as they are."""
    terrain = swiss_slope()
    release = Release(line=((X0 + 8.0, Y0 + 30.0), (X0 + 8.0, Y0 + 50.0)), height=1.2)
    ensemble = Ensemble(
        terrain,
        Rock.eota221(mass=780.0),
        Soil.preset("medium"),
        release.draw(terrain, 6, 5),
        t_max=6.0,
        seed=5,
    )
    result = ensemble.run(threads=1)
    config = validate({"rocks": 6, "seed": 5}).model_dump()
    path = write_run_report(
        tmp_path,
        summary=result.summary,
        terrain=terrain,
        rasters=result.rasters,
        rocks=result.rocks,
        config=config,
        provenance=provenance({"resolved": config}, {}, 5),
    )
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    check_offline(tmp_path, text, page)
    warnings = result.summary.get("warnings", [])
    assert page.boxes == (1 if warnings else 0)
    assert all(w in page.warning_text for w in warnings)
    # the maps, the optional maps of the run's rasters (the energy line's), the overview
    optional = [name for name in OPTIONAL_MAPS if name in result.rasters]
    assert "energy_line_angle" in optional
    assert len(page.images) == len(MAPS) + len(optional) + 1
    for key in ("stopped", "left_domain", "timed_out"):
        assert percent(result.summary["fractions"][key]) in text


def test_hazard_zone_map_is_categorical():
    """Zones 1-3 in yellow, blue, red with named ticks; zone 0 (none) is transparent."""
    from matplotlib import colors

    from tumble.viz.report_maps import ZONE_COLOURS

    terrain = Terrain.plane(30.0, size=(20.0, 10.0), spacing=1.0)
    zone = np.zeros(terrain.shape)
    zone[2:4, 3:6], zone[5, 5:9], zone[7, 2] = 1.0, 2.0, 3.0
    window = map_window(terrain, {"passing_count": (zone > 0).astype(float)}, {})
    drawn = map_figure(terrain, "hazard_zone", zone, window)
    labels = [t.get_text() for t in drawn.colorbar.ax.get_yticklabels()]
    assert labels == ["yellow", "blue", "red"]
    image = drawn.colorbar.mappable
    shown = image.get_array()
    cut = zone[window.j0 : window.j1, window.i0 : window.i1]
    np.testing.assert_array_equal(np.ma.getmaskarray(shown), cut == 0)
    for code, colour in zip((1, 2, 3), ZONE_COLOURS, strict=True):
        rgba = image.cmap(image.norm(code))
        assert colors.to_hex(rgba) == colour


def test_exits_are_tabled_and_drawn_on_the_reach_and_deposit_maps(tmp_path):
    """Ten exits (6 downslope, 3 side, 1 into a hole): the report tables them per kind with
    their shares of the 80 rocks and the hole's record, and a map given them draws one marker
    per exit, labelled with its kind and count."""
    terrain = swiss_slope()
    rasters, rocks, summary = fake_run(terrain)
    kinds = np.array(["downslope_edge"] * 6 + ["side_edge"] * 3 + ["nodata_hole"])
    exits = {"x": np.full(10, X0 + 89.0), "y": Y0 + np.arange(10.0) * 4.0 + 20.0, "kind": kinds}
    summary["exits"] = {
        "rocks": 10,
        "counts": {"downslope_edge": 6, "side_edge": 3, "nodata_hole": 1},
        "fractions": {"downslope_edge": 6 / 80, "side_edge": 3 / 80, "nodata_hole": 1 / 80},
        "holes": [{"hole": 1, "x": X0 + 90.0, "y": Y0 + 56.0, "cells": 4, "rocks": 1}],
        "rule": "the rule",
    }
    config = validate({"rocks": 80, "seed": 3, "release": {"line": [[8, 20], [8, 60]]}})
    path = write_run_report(
        tmp_path,
        summary=summary,
        terrain=terrain,
        rasters=rasters,
        rocks=rocks,
        exits=exits,
        config=config.model_dump(),
        provenance=provenance({"resolved": config.model_dump()}, {"simulation_s": 1.25}, 3),
    )
    text = path.read_text(encoding="utf-8")
    check_offline(tmp_path, text, Page(text))
    assert "Where rocks left the DEM" in text and "7.5 %" in text and "3.75 %" in text
    assert "2600090" in text and "Kinds: the rule." in text
    window = map_window(terrain, rasters, rocks)
    name = "reach_probability"
    figure = map_figure(terrain, name, rasters[name], window, rocks=rocks, exits=exits)
    lines = [line for line in figure.ax.get_lines() if line.get_marker() in ("X", "o")]
    assert sum(len(line.get_xdata()) for line in lines) == 10
    labels = figure.ax.get_legend_handles_labels()[1]
    assert "left across the downslope edge (6)" in labels
    assert "left across a side edge (3)" in labels and "fell into a nodata hole (1)" in labels


def test_the_report_says_the_maps_include_the_soil_uncertainty(tmp_path):
    from tumble.rockfall.site.soil_uncertainty import describe

    terrain = swiss_slope()
    _, _, summary = fake_run(terrain)
    _, plain, _ = report(tmp_path / "plain", summary)
    assert "Soil parameter uncertainty" not in plain
    drawn = {**summary, "soil": {"uncertainty": describe({"soil": ("medium", "category")})}}
    _, text, page = report(tmp_path / "drawn", drawn)
    assert page.errors == []
    assert "include model uncertainty" in text
    assert "scar_strength uniform in [15000, 60000]" in text


def test_map_window_is_the_reached_cells_plus_the_margin_whatever_the_zoning_rasters():
    """The fake run reaches rows 10..29 and columns 3..44 (2 m cells); with the zoning
    rasters of a run beside (frequencies 0 where no rock came, so defined everywhere) the
    window is still that box plus the margin: sides 82 m and 38 m, margin 0.08 x 82 = 6.56 m,
    the shorter side widened by (41 - 38) / 2 = 1.5 m each way, in whole cells: 4 columns
    and ceil(8.06 / 2) = 5 rows beyond the box, within the DEM."""
    terrain = swiss_slope()
    rasters, _, _ = fake_run(terrain)
    zoning = {
        "hazard_zone": np.zeros(terrain.shape),
        "reach_frequency": np.zeros(terrain.shape),
        "frequency_exceeding_30kJ": np.zeros(terrain.shape),
    }
    window = map_window(terrain, {**rasters, **zoning}, {})
    assert window == (10 - 5, 29 + 5 + 1, max(0, 3 - 4), 44 + 4 + 1)


def test_maps_draw_barrier_lines_with_names_and_release_areas_as_outlines():
    """With the run's geometry: each barrier's line through its points and its name, each
    release area's ring with its name, and no release point markers."""
    terrain = swiss_slope()
    rasters, rocks, _ = fake_run(terrain)
    net = [[X0 + 60.0, Y0 + 18.0], [X0 + 60.0, Y0 + 62.0]]
    ring = [[X0 + 4.0, Y0 + 20.0], [X0 + 12.0, Y0 + 20.0], [X0 + 12.0, Y0 + 60.0]]
    geometry = {
        "barriers": [{"name": "fence A", "kind": "net", "line": net}],
        "release": {"kind": "areas", "areas": [{"name": "east cliff", "rings": [ring]}]},
    }
    window = map_window(terrain, rasters, rocks)
    name = "reach_probability"
    drawn = map_figure(terrain, name, rasters[name], window, rocks=rocks, geometry=geometry)
    lines = drawn.ax.get_lines()
    xy = [np.column_stack([line.get_xdata(), line.get_ydata()]) for line in lines]
    assert any(p.shape == (2, 2) and np.array_equal(p, net) for p in xy)
    closed = np.vstack([ring, ring[:1]])
    assert any(p.shape == closed.shape and np.array_equal(p, closed) for p in xy)
    texts = [t.get_text() for t in drawn.ax.texts]
    assert "fence A" in texts and "east cliff" in texts
    assert not [line for line in lines if line.get_marker() == "^"]  # no point clutter
    labels = [t.get_text() for t in drawn.figure.legends[0].get_texts()]
    assert labels == ["barrier (net)", "release area"]


def test_overview_frames_the_detailed_maps_on_the_whole_dem(tmp_path):
    terrain = swiss_slope()
    _, _, summary = fake_run(terrain)
    report(tmp_path, summary)
    from matplotlib.image import imread

    assert imread(tmp_path / "figures" / "report_overview.png").shape[0] > 300


def test_table_headers_are_words_with_units():
    from tumble.viz.report_html import column_label, records_table

    source = {
        "name": "north face",
        "frequency": 0.5,
        "fractions": {"stopped": 0.94, "left_domain": 0.06},
        "runout_m": {"p50": 217.6, "p95": 259.1},
        "kinetic_energy_max_kJ": {"p95": 838.2},
        "velocity_max_ms": {"max": 37.9},
    }
    heads = re.findall(r"<th>(.*?)</th>", records_table([source]))
    assert heads == [
        "name",
        "frequency (1/year)",
        "stopped (share)",
        "left the DEM (share)",
        "run-out, median (m)",
        "run-out, 95th percentile (m)",
        "kinetic energy (largest per rock), 95th percentile (kJ)",
        "velocity (largest per rock), maximum (m/s)",
    ]
    assert all("_" not in h and "." not in h for h in heads)
    # two records of nine columns (more than 8): turned to fit a page, one column per record
    source["rocks"] = 50
    turned = records_table([source, {**source, "name": "south face", "frequency": 0.2}])
    assert re.findall(r"<th>(.*?)</th>", turned) == ["name", "north face", "south face"]
    assert '<td class="text">run-out, 95th percentile (m)</td><td>259.1</td><td>259.1</td>' in (
        turned
    )
    assert column_label("area_m2") == "area (m\N{SUPERSCRIPT TWO})"


def test_stylesheet_prints_on_a4():
    from tumble.viz.report_html import STYLE

    assert re.search(r"@page\s*{\s*size:\s*A4", STYLE)
    assert "@media print" in STYLE


def test_how_sure_the_maps_are_shows_the_convergence_record(tmp_path):
    """The section 'How sure the maps are' gives the record's rocks, cells, converged cells,
    target and min_probability, says whether the maps converged, and tables the rounds of an
    auto run with their numbers; without a record there is no section."""
    terrain = swiss_slope()
    _, _, summary = fake_run(terrain)
    record = {
        "rocks": 800,
        "converged": False,
        "target": 0.15,
        "min_probability": 0.02,
        "cells": 4321,
        "cells_converged": 3987,
        "max_rocks": 800,
        "verdict": "converged at round 3 (800 rocks): reach_line at round 2 (400 rocks)",
        "products": {
            "reach_line": {
                "measure": "share of the reach line's cells that moved by more than one cell",
                "threshold": 0.05,
                "judged": True,
                "round": 2,
                "rocks": 400,
                "last": 0.0125,
                "probability": 0.01,
            },
            "zones": {"judged": False, "threshold": 0.05, "nothing_to_judge": "no cell is zoned"},
        },
        "rounds": [
            {"rocks": 200, "cells": 4100, "cells_converged": 1234, "runout_p95_m": 301.7},
            {"rocks": 400, "cells": 4250, "cells_converged": 2876, "runout_p95_m": 305.2},
            {"rocks": 800, "cells": 4321, "cells_converged": 3987, "runout_p95_m": 306.9},
        ],
    }
    _, text, page = report(tmp_path / "auto", {**summary, "convergence": record})
    assert page.errors == []
    section = text[text.index("<h2>How sure the maps are</h2>") :]
    section = section[: section.index("<h2>", 5)]
    assert "With 800 rocks 3987 of 4321 such cells have converged: not all have." in section
    assert "at least 0.02" in section and "within 0.15 of the value" in section
    assert "convergence.max_rocks = 800" in section
    assert "reach_line at round 2 (400 rocks)." in section
    assert "round 2 (400 rocks)</td>" in section and "no cell is zoned</td>" in section
    assert "(reach probability &gt;= 0.01)" in section and ">0.0125<" in section
    for r in record["rounds"]:
        for value in (r["rocks"], r["cells"], r["cells_converged"], r["runout_p95_m"]):
            assert f">{value}<" in section.replace(" ", ""), value
    fixed = {
        k: v for k, v in record.items() if k not in ("max_rocks", "rounds", "products", "verdict")
    }
    fixed.update(converged=True, cells_converged=4321)
    _, text, _ = report(tmp_path / "fixed", {**summary, "convergence": fixed})
    assert "With 800 rocks 4321 of 4321 such cells have converged: all have." in text
    assert "rocks = &quot;auto&quot;" not in text and 'rocks = "auto"' not in text
    plain = {k: v for k, v in summary.items() if k != "convergence"}
    _, text, _ = report(tmp_path / "none", plain)
    assert "How sure the maps are" not in text


def test_energy_line_section_shows_the_smallest_angles(tmp_path):
    """The section 'Energy line' gives the smallest angle of the map and of the rocks at rest
    (4 significant digits) and the geometric method's range with its source; without a record
    there is no section."""
    _, _, summary = fake_run(swiss_slope())
    record = {
        "min_angle_deg": 28.123456,
        "min_deposit_angle_deg": 31.98765,
        "geometric_range_deg": [27.0, 35.0],
        "geometric_source": "Evans & Hungr 1993",
    }
    _, text, page = report(tmp_path / "line", {**summary, "energy_line": record})
    assert page.errors == []
    section = text[text.index("<h2>Energy line</h2>") :]
    assert "<b>28.12 degrees</b>" in section
    assert "(over the rocks at rest: 31.99 degrees)" in section
    assert "takes 27-35 degrees (Evans &amp; Hungr 1993)" in section
    _, text, _ = report(tmp_path / "none", {k: v for k, v in summary.items() if k != "energy_line"})
    assert "<h2>Energy line</h2>" not in text


def test_release_markers_are_the_distinct_release_cells_in_row_order():
    """The 80 release points of fake_run fall in fewer than 30 cells: one triangle per cell at
    its centre, the cells in row order (hand-computed from the points' nearest grid nodes)."""
    terrain, _, _, drawn = draw_map("kinetic_energy_max")
    _, rocks, _ = fake_run(terrain)
    i = np.floor((rocks["release_x"] - X0) / 2.0 + 0.5).astype(int)
    j = np.floor((rocks["release_y"] - Y0) / 2.0 + 0.5).astype(int)
    cells = sorted(set(zip(j.tolist(), i.tolist(), strict=True)))
    expected = [(X0 + 2.0 * ci, Y0 + 2.0 * cj) for cj, ci in cells]
    (markers,) = [line for line in drawn.ax.get_lines() if line.get_marker() == "^"]
    assert 1 < len(cells) <= 30
    assert list(zip(*markers.get_data(), strict=True)) == expected


@pytest.mark.parametrize("shape", [(40, 60), (120, 20), (20, 120)])
def test_map_layout_keeps_every_label_inside_the_figure_and_off_the_map(shape):
    """The fixed layout of a map, wide, tall and square-ish DEMs, with a legend: the map at
    equal scale, the colour bar right of it, the legend and title above it, the tick and axis
    labels beside it, and every text inside the figure (bounding boxes in pixels)."""
    ny, nx = shape
    terrain = swiss_slope(nx=nx, ny=ny)
    rasters, rocks, _ = fake_run(swiss_slope())
    values = np.full((ny, nx), np.nan)
    values[: min(ny, 40), : min(nx, 60)] = rasters["kinetic_energy_max"][
        : min(ny, 40), : min(nx, 60)
    ]
    window = Window(0, ny, 0, nx)
    geometry = {
        "barriers": [
            {"name": "fence", "kind": "net", "line": [[X0 + 20, Y0 + 4], [X0 + 20, Y0 + 30]]}
        ]
    }
    drawn = map_figure(
        terrain, "kinetic_energy_max", values, window, rocks=rocks, geometry=geometry
    )
    fig, ax = drawn.figure, drawn.ax
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    box = fig.bbox
    map_box = ax.get_window_extent(renderer)

    def inside(b):
        return b.x0 >= box.x0 - 1 and b.x1 <= box.x1 + 1 and b.y0 >= -1 and b.y1 <= box.y1 + 1

    def drawn_ticks(axis, which):  # the tick labels within the axis's limits (those drawn)
        low, high = sorted(axis.get_view_interval())
        return {t for t in axis.get_ticklabels() if low <= t.get_position()[which] <= high}

    ticks = {*drawn_ticks(ax.xaxis, 0), *drawn_ticks(ax.yaxis, 1)}
    hidden = {*ax.get_xticklabels(), *ax.get_yticklabels()} - ticks
    texts = [
        t
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text() and t not in hidden
    ]
    for text in texts:
        assert inside(text.get_window_extent(renderer)), text.get_text()
    assert drawn.colorbar.ax.get_window_extent(renderer).x0 > map_box.x1
    (legend,) = fig.legends
    assert legend.get_window_extent(renderer).y0 >= ax.title.get_window_extent(renderer).y1 - 1
    assert ax.title.get_window_extent(renderer).y0 >= map_box.y1
    for label in drawn_ticks(ax.xaxis, 0):
        assert label.get_window_extent(renderer).y1 <= map_box.y0
    for label in drawn_ticks(ax.yaxis, 1):
        assert label.get_window_extent(renderer).x1 <= map_box.x0
    width, height = map_box.width, map_box.height
    assert width / height == pytest.approx(nx / ny, rel=0.02)  # equal scale, box filled


def test_maps_drawn_on_one_figure_are_the_maps_drawn_each_on_its_own():
    """A ``MapSeries`` draws six maps in turn on one figure: with and without exit markers (the
    legend one row taller or not, so the figure changes size), a log colour bar, a count, an
    empty raster ("no values") and a map after it. Each is, pixel for pixel at 120 dpi, the map
    ``map_figure`` draws on a figure of its own."""
    from tumble.viz.png import figure_pixels
    from tumble.viz.report_maps import MapSeries, relief

    terrain = swiss_slope()
    rasters, rocks, _ = fake_run(terrain)
    rasters["converged"] = np.full(terrain.shape, np.nan)
    kinds = np.array(["downslope_edge"] * 6 + ["side_edge"] * 3 + ["nodata_hole"])
    exits = {"x": np.full(10, X0 + 89.0), "y": Y0 + np.arange(10.0) * 4.0 + 20.0, "kind": kinds}
    window = map_window(terrain, rasters, rocks)
    shaded = relief(terrain, window)
    series = MapSeries(terrain, window, rocks=rocks, shaded=shaded, exits=exits)
    sizes = set()
    for name, with_exits in (
        ("kinetic_energy_max", False),
        ("reach_probability", True),
        ("deposit_count", True),
        ("converged", False),
        ("jump_height_max", False),
        ("kinetic_energy_p95", True),
    ):
        drawn = series.draw(name, rasters[name], n_rocks=80, exits=with_exits)
        reused = figure_pixels(drawn.figure, 120)
        alone = map_figure(
            terrain,
            name,
            rasters[name],
            window,
            rocks=rocks,
            n_rocks=80,
            shaded=shaded,
            exits=exits if with_exits else None,
        )
        np.testing.assert_array_equal(reused, figure_pixels(alone.figure, 120), err_msg=name)
        sizes.add(reused.shape)
    assert len(sizes) == 2  # the legend with the exits takes another row


def test_every_map_has_a_caption_in_words(tmp_path):
    """Every map the report can draw, the optional ones included (convergence, release areas
    reaching a cell), gets a caption in words, never the bare raster name."""
    from tumble.viz.run_report import draw_report_maps

    terrain = swiss_slope()
    rasters, rocks, _ = fake_run(terrain)
    band = np.isfinite(rasters["kinetic_energy_max"])
    for name in OPTIONAL_MAPS:
        rasters[name] = np.where(band, 1.0, 0.0)
    maps = draw_report_maps(tmp_path, terrain=terrain, rasters=rasters, rocks=rocks, n_rocks=80)
    assert len(maps) == len(MAPS) + len(OPTIONAL_MAPS) + 1
    names = set(MAPS) | set(OPTIONAL_MAPS)
    for path, caption in maps:
        assert caption not in names, path.name
        assert " " in caption and caption.endswith("."), caption


def test_the_run_s_other_figures_are_captioned_in_words():
    """The barrier figures and the figures of every run get captions that say what they show;
    an unknown figure keeps its file name."""
    from tumble.viz.run_report import figure_caption

    for name in ("figures/barrier_net_exceedance.png", "figures/barrier_valley_along.png"):
        caption = figure_caption(name)
        assert caption.startswith("Barrier ") and name not in caption
    assert "net" in figure_caption("figures/barrier_net_along.png")
    for name in ("energy_map", "profile", "histograms"):
        caption = figure_caption(f"figures/{name}.png")
        assert " " in caption and caption.endswith(".") and name not in caption
    assert figure_caption("figures/other.png") == "figures/other.png"


def test_the_converged_map_tells_unreached_cells_from_unconverged_ones(tmp_path):
    """The converged map of the report: converged cells green, reached cells that have not
    converged orange, "yes" and "no" on the colour bar; cells no rock reached are left to the relief
    (masked), not drawn as not converged."""
    from matplotlib import colors

    from tumble.viz.report_maps import CONVERGED_COLOURS
    from tumble.viz.run_report import draw_report_maps

    terrain = swiss_slope()
    rasters, rocks, _ = fake_run(terrain)
    reached = rasters["passing_count"] > 0
    _jj, ii = np.mgrid[0 : terrain.shape[0], 0 : terrain.shape[1]]
    rasters["converged"] = np.where(reached & (ii < 20), 1.0, 0.0)  # 0 wherever not converged
    drawn = []
    import tumble.viz.run_report as report

    original = report.MapSeries.draw

    def keep(self, name, values, **kwargs):
        out = original(self, name, values, **kwargs)
        if name == "converged":  # the figure is drawn again for the next map: keep what shows
            image = out.colorbar.mappable
            shades = [colors.to_hex(image.cmap(image.norm(v))) for v in (0, 1)]
            labels = [t.get_text() for t in out.colorbar.ax.get_yticklabels()]
            drawn.append((self.window, image.get_array().copy(), shades, labels))
        return out

    report.MapSeries.draw = keep
    try:
        draw_report_maps(tmp_path, terrain=terrain, rasters=rasters, rocks=rocks, n_rocks=80)
    finally:
        report.MapSeries.draw = original
    ((window, shown, shades, labels),) = drawn
    cut = (slice(window.j0, window.j1), slice(window.i0, window.i1))
    np.testing.assert_array_equal(np.ma.getmaskarray(shown), ~reached[cut])
    np.testing.assert_array_equal(shown.compressed(), rasters["converged"][cut][reached[cut]])
    assert {0.0, 1.0} <= set(shown.compressed().tolist())
    assert shades == list(CONVERGED_COLOURS)
    assert labels == ["no", "yes"]


def test_further_values_of_the_run_are_words_with_units():
    """The zoning record among the further values reads in words with units, never as the
    summary's keys ("zoning, areas, yellow, m2")."""
    from tumble.viz.report_html import values_table

    zoning = {
        "areas": {z: {"cells": 10, "m2": 40.0, "ha": 0.004} for z in ("yellow", "blue", "red")},
        "energy_thresholds_kJ": [30.0, 300.0],
        "return_periods_years": [30.0, 100.0, 300.0],
        "source": "Raetzo et al. 2002",
    }
    heads = re.findall(r'<td class="text">(.*?)</td>', values_table({"zoning": zoning}))
    assert heads[:3] == [
        "area of the yellow hazard zone (cells)",
        "area of the yellow hazard zone (m\N{SUPERSCRIPT TWO})",
        "area of the yellow hazard zone (ha)",
    ]
    assert "area of the red hazard zone (ha)" in heads
    assert "hazard zones: energy limits of the intensity classes (kJ)" in heads
    assert "hazard zones: return-period limits of the probability classes (years)" in heads
    assert not [h for h in heads if "zoning" in h or " m2" in h or "_" in h]
