"""A real-looking site end to end: an 80 degree rock band and an irregular nodata footprint. A
release area on the band runs (its rocks lifted clear of the face, counted in
``summary.json["release"]``), one reaching into the nodata margin is clipped with a warning on
the screen, in the summary and in the report; an area with nothing on the DEM is refused by name
and nothing is written."""

import json
import math

import numpy as np
import pytest

from tumble.cli.main import main
from tumble.io.dem import write_raster
from tumble.io.vectors import write_polygons

X0, Y0 = -8400.0, 194800.0
CRS = "EPSG:31254"


def rectangle(x1, y1, x2, y2):
    return np.array(
        [(X0 + x1, Y0 + y1), (X0 + x2, Y0 + y1), (X0 + x2, Y0 + y2), (X0 + x1, Y0 + y2)]
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """1 m cells: a plateau at 1056.7 m, an 80 degree band from x = 20 to 30 (56.7 m high),
    a 35 degree slope below to x = 60 and flat ground to x = 80; samples with y > 40 and
    x > 50 are nodata (the DEM's footprint is an L)."""
    folder = tmp_path_factory.mktemp("site")
    x = np.arange(81.0)
    band = np.clip((30.0 - x) * math.tan(math.radians(80.0)), 0.0, None)
    slope = np.clip(60.0 - x, 0.0, 30.0) * math.tan(math.radians(35.0))
    z = 1000.0 + np.minimum(band, 10.0 * math.tan(math.radians(80.0))) + slope
    heights = np.array(np.broadcast_to(z, (61, 81)))
    heights[41:, 51:] = np.nan
    write_raster(folder / "dem.tif", heights, X0, Y0, 1.0, 1.0, crs=CRS)
    write_polygons(
        folder / "release.gpkg",
        [[rectangle(22, 10, 28, 20)], [rectangle(44, 35, 56, 45)]],
        {"name": ["band", "margin"]},
        CRS,
    )
    write_polygons(folder / "lost.gpkg", [[rectangle(60, 45, 70, 55)]], {"name": ["lost"]}, CRS)
    (folder / "site.toml").write_text(
        'dem = "dem.tif"\nrocks = 20\nt_max = 3.0\n\n[rock]\nmass = 2000.0\n\n'
        '[release]\nareas = "release.gpkg"\nname_field = "name"\nheight = 1.5\n'
    )
    return folder


def test_cliff_and_nodata_release_areas_run_and_say_what_was_adjusted(site, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["rockfall", "run", "--config", str(site / "site.toml"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    # 'margin' (x 44 to 56, y 35 to 45): x > 50 and y > 40 is nodata (6 x 5 of 12 x 10 m^2)
    clipped = (
        "release area 'margin': 25 % of its area lies off the DEM (25 % in a nodata area of "
        "the DEM) and was clipped"
    )
    assert f"warning: {clipped}" in err
    summary = json.loads((out / "summary.json").read_text())
    assert any(w.startswith(clipped) for w in summary["warnings"])
    release = summary["release"]
    assert release["height_m"] == 1.5 and release["clearance"] == "vertical"
    # split by the area left: 'band' 60 m^2, 'margin' 90 m^2 of its 120: 8 and 12 rocks; the
    # rocks lifted are the band's (1.5 m above an 80 degree face is 0.26 m from it), never the
    # margin's, on a 35 degree slope; rocks placed again are the margin's, whose hull reached
    # over the nodata edge
    rocks = {s["name"]: s["rocks"] for s in summary["sources"]}
    assert rocks == {"band": 8, "margin": 12}
    assert 1 <= release["adjusted"] <= 8 and release["moved"] <= 12
    assert release["lift_max_m"] >= release["lift_median_m"] > 0.0
    assert [c["name"] for c in release["clipped"]] == ["margin"]
    assert release["clipped"][0]["nodata_share"] == pytest.approx(0.25, rel=1e-12)
    report = (out / "report.html").read_text()
    assert "<h3>Release</h3>" in report and "margin: share clipped off the DEM" in report
    assert "rocks lifted to clear the terrain by that height" in report


def test_an_area_with_nothing_on_the_dem_is_refused_by_name(site, tmp_path, capsys):
    out = tmp_path / "lost"
    code = main(
        ["rockfall", "run", "--config", str(site / "site.toml"), "--out", str(out)]
        + [f"release.areas='{site / 'lost.gpkg'}'"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "release area 'lost' lies entirely in a nodata area of the DEM" in err
    assert "outside the DEM" not in err
    assert not out.exists()
