"""Onset frequencies as densities (tumble.rockfall.site.release_sources, issue #51): a frequency
per hectare gives each area density times its size, so one polygon and the same polygon split in
two give every rock the same weight and identical zones, where a frequency per area doubles the
hazard below a split; a release line takes a frequency per 100 m; one frequency key at most, each
where it applies; a diluted frequency per area is warned about."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.errors import ConfigError
from tumble.io.config import validate
from tumble.io.vectors import write_polygons
from tumble.rockfall import Terrain
from tumble.rockfall.hazard.sources import Site
from tumble.rockfall.hazard.zoning import zoning_rasters
from tumble.rockfall.release import Release
from tumble.rockfall.site.release_sources import (
    dilution_warnings,
    frequency_key,
    frequency_record,
    inline_frequency,
    release_areas,
)

CRS = "EPSG:2056"
X0, Y0 = 2_600_000.0, 1_200_000.0
ROCKS = 40


@pytest.fixture(scope="module")
def terrain():
    x = np.arange(101.0)
    z = (100.0 - x) * math.tan(math.radians(30.0))
    return Terrain.from_array(np.broadcast_to(z, (61, 101)), x0=X0, y0=Y0, dx=1.0, crs=CRS)


def rectangle(x0, x1, y0, y1):
    return [
        np.array([(X0 + x0, Y0 + y0), (X0 + x1, Y0 + y0), (X0 + x1, Y0 + y1), (X0 + x0, Y0 + y1)])
    ]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 40 m x 25 m cliff band (0.1 ha) as one polygon and split into two halves of 0.05 ha,
    each with the attributes freq = 0.1 (per area) and f_ha = 0.01 (per hectare)."""
    root = tmp_path_factory.mktemp("sources")
    write_polygons(
        root / "one.gpkg",
        [rectangle(10, 50, 20, 45)],
        {"name": np.array(["band"], dtype=object), "freq": [0.1], "f_ha": [0.01]},
        crs=CRS,
    )
    write_polygons(
        root / "two.gpkg",
        [rectangle(10, 30, 20, 45), rectangle(30, 50, 20, 45)],
        {"name": np.array(["west", "east"], dtype=object), "freq": [0.1, 0.1], "f_ha": [0.01] * 2},
        crs=CRS,
    )
    return root


def config(file, **release):
    return validate(
        {"rocks": ROCKS, "release": {"areas": str(file), "name_field": "name", **release}}
    )


def areas_of(terrain, file, **release):
    c = config(file, **release)
    return release_areas(c, terrain, file.parent, ROCKS)


@pytest.mark.parametrize(
    "release", [{"frequency_per_ha": 0.01}, {"frequency_per_ha_field": "f_ha"}]
)
def test_a_density_gives_each_area_density_times_its_size(terrain, files, release):
    one = areas_of(terrain, files / "one.gpkg", **release)
    two = areas_of(terrain, files / "two.gpkg", **release)
    assert one.frequencies == pytest.approx((0.001,), rel=1e-12)  # 0.1 ha
    assert two.frequencies == pytest.approx((0.0005, 0.0005), rel=1e-12)
    # every rock stands for the same events per year, split or not
    per_rock = [f / n for f, n in zip(two.frequencies, two.counts, strict=True)]
    assert per_rock == pytest.approx([one.frequencies[0] / ROCKS] * 2, rel=1e-12)
    key = next(iter(release))
    assert one.description[key] == release[key] and "frequency_field" not in one.description


def test_one_polygon_and_the_same_polygon_split_give_identical_zones(terrain, files):
    """The same rocks' visits (rock k reaches cells with energies that do not depend on how the
    release was drawn) zoned with the sources of one polygon and of its two halves: identical
    zones and frequencies with frequency_per_ha (1/ha: 0.1/year in all); with a frequency per
    area (0.1 each) the split doubles every frequency and raises zones."""
    rng = np.random.default_rng(5)
    size = 30 * 20
    rock, cell, energy = [], [], []
    for k in range(ROCKS):
        cells = rng.choice(size, size=25, replace=False)
        rock += [k] * cells.size
        cell += cells.tolist()
        energy += (rng.lognormal(4.0, 1.5, cells.size)).tolist()
    visits = (np.array(rock), np.array(cell), np.array(energy))

    def zones(file, **release):
        areas = areas_of(terrain, file, **release)
        source = np.asarray(areas.source_of(np.arange(ROCKS)))
        return zoning_rasters((30, 20), *visits, source, [float(f) for f in areas.frequencies])

    one = zones(files / "one.gpkg", frequency_per_ha=1.0)
    two = zones(files / "two.gpkg", frequency_per_ha=1.0)
    assert np.array_equal(one["hazard_zone"], two["hazard_zone"])
    assert np.count_nonzero(one["hazard_zone"]) > 0
    for name in ("reach_frequency", "frequency_exceeding_30kJ", "frequency_exceeding_300kJ"):
        np.testing.assert_allclose(two[name], one[name], rtol=1e-12, atol=0.0)
    # a frequency per area: the split doubles the hazard below
    whole = zones(files / "one.gpkg", frequency_field="freq")
    split = zones(files / "two.gpkg", frequency_field="freq")
    np.testing.assert_allclose(split["reach_frequency"], 2.0 * whole["reach_frequency"], rtol=1e-12)
    assert np.count_nonzero(split["hazard_zone"] > whole["hazard_zone"]) > 0


def test_a_release_line_takes_a_frequency_per_100m_and_a_polygon_per_ha(terrain):
    line = [[X0 + 10.0, Y0 + 10.0], [X0 + 10.0, Y0 + 50.0]]  # 40 m
    c = validate({"rocks": 4, "release": {"line": line, "frequency_per_100m": 0.5}})
    assert inline_frequency(c, Release(line=line), terrain) == pytest.approx(0.2, rel=1e-12)
    polygon = rectangle(10, 50, 20, 45)[0].tolist()  # 1000 m^2
    c = validate({"rocks": 4, "release": {"polygon": polygon, "frequency_per_ha": 0.3}})
    assert inline_frequency(c, Release(polygon=polygon), terrain) == pytest.approx(0.03, rel=1e-12)
    record = frequency_record(c)
    assert record["basis"] == "per_ha" and record["key"] == "release.frequency_per_ha"
    assert record["value"] == 0.3 and "hectare" in record["text"]


@pytest.mark.parametrize(
    ("release", "key", "words"),
    [
        (
            {"point": [1.0, 2.0], "frequency_per_ha": 0.1},
            "release.frequency_per_ha",
            "not a release point",
        ),
        (
            {"line": [[0.0, 0.0], [1.0, 0.0]], "frequency_per_ha": 0.1},
            "release.frequency_per_ha",
            "frequency_per_100m",
        ),
        (
            {"polygon": [[0, 0], [1, 0], [1, 1]], "frequency_per_100m": 0.1},
            "release.frequency_per_100m",
            "frequency_per_ha",
        ),
        (
            {"areas": "a.gpkg", "frequency_field": "f", "frequency_per_ha": 0.1},
            "release.frequency_per_ha",
            "give one onset frequency",
        ),
        (
            {"areas": "a.gpkg", "frequency_per_100m_field": "f"},
            "release.frequency_per_100m_field",
            "not supported",
        ),
        (
            {"polygon": [[0, 0], [1, 0], [1, 1]], "frequency_per_ha_field": "f"},
            "release.frequency_per_ha_field",
            "vector file",
        ),
    ],
)
def test_a_frequency_key_where_it_does_not_apply_is_refused_naming_it(release, key, words):
    with pytest.raises(ConfigError) as err:
        frequency_key(validate({"release": release}))
    assert err.value.key == key and words in str(err.value)


def test_negative_density_is_refused():
    with pytest.raises(ConfigError, match="frequency_per_ha"):
        validate({"release": {"areas": "a.gpkg", "frequency_per_ha": -0.1}})


def test_a_diluted_frequency_per_area_is_warned_with_its_density():
    """Two areas of 10 rocks, frequency 0.1 per area: the first reaches one cell with 9 of its
    rocks (90 %: not diluted), the second no cell with more than 3 (30 %): warned, with 0.03/year
    reaching any cell and the density 0.1 / 2 ha = 0.05/ha."""
    size = 100
    source = np.repeat([0, 1], 10)
    site = Site(("small", "large"), (0.1, 0.1), source, ("c",), (1.0,), np.zeros(20, int), True)
    reach = {
        "reach_key": np.array([0 * size + 7, 0 * size + 8, 1 * size + 7, 1 * size + 50]),
        "reach_count": np.array([9, 2, 3, 1]),
    }
    [warning] = dilution_warnings(site, reach, size, (1e3, 2e4))
    assert "release area 'large' (2 ha)" in warning and "30 % of its rocks" in warning
    assert "0.03/year" in warning and "frequency_per_ha (0.05/ha here)" in warning


def test_a_run_from_a_release_line_is_zoned_with_its_frequency_per_100m(terrain, tmp_path):
    """A 40 m release line with 0.5 per 100 m: one source of 0.2/year, zoned, and the summary and
    report say which frequency was used."""
    from tumble.pipeline import RockfallRun

    terrain.write(tmp_path / "dem.tif")
    line = [[X0 + 5.0, Y0 + 10.0], [X0 + 5.0, Y0 + 50.0]]
    settings = {
        "dem": str(tmp_path / "dem.tif"),
        "rocks": 6,
        "t_max": 3.0,
        "release": {"line": line, "frequency_per_100m": 0.5, "height": 1.0},
    }
    run = RockfallRun.from_config(settings=settings, overrides=["output.figures=false"])
    outcome = run.run(tmp_path / "run")
    [source] = outcome.summary["sources"]
    assert source["frequency"] == pytest.approx(0.2, rel=1e-12)
    used = outcome.summary["zoning"]["frequency"]
    assert used["basis"] == "per_100m" and used["value"] == 0.5
    assert (tmp_path / "run" / "rasters" / "hazard_zone.tif").is_file()
    report = (tmp_path / "run" / "report.html").read_text()
    assert "onset events per year and 100 m of release line" in report
