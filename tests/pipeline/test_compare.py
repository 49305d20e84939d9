"""``tumble rockfall compare A B --out C``: the difference rasters recomputed from the two runs'
own rasters, the zone change, every configuration key that differs with both values, and runs
on different grids refused with nothing written."""

import html
import json
import math
import shutil

import numpy as np
import pytest
import rasterio

from tumble.cli.main import main
from tumble.io.vectors import write_polygons
from tumble.pipeline.differences import (
    ZONE_CHANGE_NODATA,
    barrier_comparison,
    config_differences,
    flatten_config,
    outcome_shares,
    soil_value_differences,
)
from tumble.rockfall import Terrain
from tumble.rockfall.soil import PRESETS

CRS = "EPSG:2056"
X0, Y0 = 2_600_000.0, 1_200_000.0


def slope(nx: int = 61, ny: int = 31) -> Terrain:
    """A 35 degree slope over 35 m to a flat foot, 1 m grid, Swiss CRS."""
    x = np.arange(float(nx))
    z = np.maximum(35.0 - x, 0.0) * math.tan(math.radians(35.0))
    return Terrain.from_array(np.broadcast_to(z, (ny, nx)), x0=X0, y0=Y0, dx=1.0, crs=CRS)


def site(folder, nx: int = 61) -> str:
    """A DEM and one release area with a frequency (so the runs have hazard zones); the
    configuration's text without barrier."""
    folder.mkdir(parents=True, exist_ok=True)
    slope(nx).write(folder / "dem.tif")
    ring = np.array([(X0 + 2, Y0 + 10), (X0 + 6, Y0 + 10), (X0 + 6, Y0 + 20), (X0 + 2, Y0 + 20)])
    write_polygons(
        folder / "release.gpkg", [[ring]], {"name": ["face"], "frequency": [0.1]}, crs=CRS
    )
    return (
        'dem = "dem.tif"\nrocks = 16\nseed = 4\nt_max = 8.0\n'
        '[release]\nareas = "release.gpkg"\nname_field = "name"\nfrequency_field = "frequency"\n'
        "height = 1.0\n"
        '[rock]\nshape = "eota111"\nmass = 400.0\n'
        "[output]\ntrajectories = 0\nfigures = false\n"
    )


NET = (
    '[[barrier]]\nname = "fence"\nline = [[2600030.0, 1200000.5], [2600030.0, 1200029.5]]\n'
    "height = 6.0\ncapacity = 3000.0\n"
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run A without and run B with a net across the slope at x = 30 m, on one site."""
    root = tmp_path_factory.mktemp("compare")
    text = site(root / "site")
    (root / "site" / "a.toml").write_text(text)
    (root / "site" / "b.toml").write_text(text + NET)
    for name in ("a", "b"):
        config = str(root / "site" / f"{name}.toml")
        assert main(["rockfall", "run", "--config", config, "--out", str(root / name)]) == 0
    return root


@pytest.fixture(scope="module")
def compared(runs):
    out = runs / "c"
    assert main(["rockfall", "compare", str(runs / "a"), str(runs / "b"), "--out", str(out)]) == 0
    return out


def band(path):
    with rasterio.open(path) as f:
        return f.read(1, masked=True), f.descriptions[0], f.nodata, f.dtypes[0]


@pytest.mark.parametrize("name", ["reach_probability", "kinetic_energy_p95"])
def test_deltas_are_b_minus_a_of_the_runs_rasters(runs, compared, name):
    """Recomputed from A's and B's GeoTIFFs: B - A with a run's nodata as 0, nodata where both
    are nodata; equal to the float32 of the written raster exactly."""
    a, _, _, _ = band(runs / "a" / "rasters" / f"{name}.tif")
    b, _, _, _ = band(runs / "b" / "rasters" / f"{name}.tif")
    got, description, _, dtype = band(compared / "rasters" / f"delta_{name}.tif")
    neither = a.mask & b.mask
    expected = (b.filled(0.0).astype(np.float64) - a.filled(0.0).astype(np.float64)).astype(
        np.float32
    )
    assert dtype == "float32" and "B minus A" in description
    assert np.array_equal(got.mask, neither)
    assert np.array_equal(got.filled(0)[~neither], expected[~neither])
    assert got.min() < 0  # the net keeps rocks from cells A's rocks reached


def test_zone_change_is_b_minus_a_in_zone_codes(runs, compared):
    za, _, _, _ = band(runs / "a" / "rasters" / "hazard_zone.tif")
    zb, _, _, _ = band(runs / "b" / "rasters" / "hazard_zone.tif")
    ra, _, _, _ = band(runs / "a" / "rasters" / "reach_probability.tif")
    rb, _, _, _ = band(runs / "b" / "rasters" / "reach_probability.tif")
    got, description, nodata, dtype = band(compared / "rasters" / "delta_hazard_zone.tif")
    assert dtype == "int8" and nodata == ZONE_CHANGE_NODATA and "3 red" in description
    neither = ra.mask & rb.mask
    assert np.array_equal(got.mask, neither)
    expected = zb.filled(0).astype(np.int64) - za.filled(0).astype(np.int64)
    assert np.array_equal(got.filled(0)[~neither], expected[~neither])
    summary = json.loads((compared / "summary.json").read_text())
    cells = sum(row["cells"] for row in summary["zone_transitions"])
    assert cells == int((~neither).sum())


def test_differences_name_every_changed_key_with_both_values(runs, compared, capsys):
    summary = json.loads((compared / "summary.json").read_text())
    differences = {d["key"]: (d["a"], d["b"]) for d in summary["differences"]}
    assert differences["barrier.0.name"] == (None, "fence")
    assert differences["barrier.0.height"] == (None, 6.0)
    assert differences["barrier.0.capacity"] == (None, 3000.0)
    assert differences["barrier.0.line"] == (None, [[2600030.0, 1200000.5], [2600030.0, 1200029.5]])
    # nothing else differs: the same site, seed and rocks
    assert set(differences) == {
        f"barrier.0.{k}" for k in ("name", "line", "height", "capacity", "uphill")
    }
    report = (compared / "report.html").read_text()
    assert "barrier.0.capacity" in report and "3000" in report
    main(["rockfall", "compare", str(runs / "a"), str(runs / "b"), "--out", str(runs / "c2")])
    printed = capsys.readouterr().out
    assert "barrier.0.capacity: (not set) -> 3000" in printed


def test_runs_on_different_grids_are_refused_and_nothing_is_written(runs, tmp_path, capsys):
    text = site(tmp_path / "site", nx=51)
    (tmp_path / "site" / "short.toml").write_text(text.replace("rocks = 16", "rocks = 2"))
    config = str(tmp_path / "site" / "short.toml")
    assert main(["rockfall", "run", "--config", config, "--out", str(tmp_path / "short")]) == 0
    out = tmp_path / "c"
    capsys.readouterr()
    status = main(
        ["rockfall", "compare", str(runs / "a"), str(tmp_path / "short"), "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert "different grids" in err and "61 x 31" in err and "51 x 31" in err
    assert not out.exists()
    assert not list(tmp_path.glob(".c.partial*"))


def test_flatten_config_lists_of_tables_by_index():
    config = {
        "seed": 1,
        "release": {"height": 1.5, "point": [1.0, 2.0]},
        "barrier": [{"name": "x"}],
    }
    assert flatten_config(config) == {
        "seed": 1,
        "release.height": 1.5,
        "release.point": [1.0, 2.0],
        "barrier.0.name": "x",
    }
    other = {"seed": 2, "release": {"height": 1.5, "point": [1.0, 3.0]}, "barrier": []}
    assert config_differences(config, other) == [
        {"key": "barrier.0.name", "a": "x", "b": None},
        {"key": "release.point", "a": [1.0, 2.0], "b": [1.0, 3.0]},
        {"key": "seed", "a": 1, "b": 2},
    ]


def small_run(out, *extra) -> None:
    """Two rocks on slope40 for two seconds on medium: a run whose soil is all that matters."""
    argv = ["rockfall", "run", "--rocks", "2", "--t-max", "2", "--no-figures", "--soil", "medium"]
    assert main([*argv, *extra, "--out", str(out)]) == 0


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Run A made while medium had mu_r 0.15 (as in the release before the Authume refinement),
    run B on today's medium with the soil strength given over it, and A's folder as an older
    release leaves it (no soil values stored)."""
    root = tmp_path_factory.mktemp("releases")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(PRESETS, "medium", {**PRESETS["medium"], "rolling_resistance": 0.15})
        small_run(root / "a")
    small_run(root / "b", "soil.scar_strength=60000")
    old = root / "old"
    shutil.copytree(root / "a", old)
    summary = json.loads((old / "summary.json").read_text())
    summary["soil"] = {"uncertainty": summary["soil"]["uncertainty"]}
    (old / "summary.json").write_text(json.dumps(summary))
    return root


def test_compare_names_each_value_of_a_preset_that_changed_between_releases(releases, capsys):
    """Both runs name medium: the configuration keys show the values each run used, and the
    values of the preset itself show that medium took other numbers (mu_r 0.15 -> 0.1), while
    the field given over it in B is no change of the preset."""
    out = releases / "c"
    capsys.readouterr()
    assert (
        main(["rockfall", "compare", str(releases / "a"), str(releases / "b"), "--out", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "  soil.rolling_resistance: 0.15 -> 0.1\n" in printed
    assert "  soil.scar_strength: 15000 -> 60000\n" in printed
    assert "Values of the soil presets that differ (1), A -> B:\n" in printed
    assert "  soil.medium.rolling_resistance: 0.15 -> 0.1\n" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["value_differences"] == [
        {"key": "soil.medium.rolling_resistance", "a": 0.15, "b": 0.1}
    ]
    assert summary["value_notes"] == []
    report = (out / "report.html").read_text()
    assert 'soil.medium.rolling_resistance</td><td class="text">0.15</td>' in report


def test_compare_says_when_a_run_folder_does_not_store_its_soil_values(releases, capsys):
    out = releases / "c_old"
    capsys.readouterr()
    assert (
        main(["rockfall", "compare", str(releases / "old"), str(releases / "b"), "--out", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    note = (
        f"run A ({releases / 'old'}) is a run folder of an older release: resolved soil values "
        "(its presets' numbers) not stored"
    )
    assert f"note: {note}\n" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["value_differences"] == [] and summary["value_notes"] == [note]
    assert html.escape(note) in (out / "report.html").read_text()


def test_soil_value_differences_leave_out_a_field_one_release_did_not_have_at_0():
    """A field added after A's release is off (0) in B: no difference; at another value it is
    one, as is every changed value; presets only one run used are the configuration's
    difference, not the values'."""
    a = {"medium": {"mu_min": 0.55, "rolling_resistance": 0.15}, "lu2019": {"kappa": 3.0}}
    b = {"medium": {"mu_min": 0.55, "rolling_resistance": 0.1, "new_law": 0.0}}
    assert soil_value_differences(a, b) == [
        {"key": "soil.medium.rolling_resistance", "a": 0.15, "b": 0.1}
    ]
    b["medium"]["new_law"] = 2.0
    assert soil_value_differences(a, b)[-1] == {"key": "soil.medium.new_law", "a": None, "b": 2.0}


def test_compare_lists_every_outcome_and_every_barrier_lines_crossings_and_design(
    runs, compared, capsys
):
    """Run B's net appears with its crossings and design values (A: not in this run), and every
    outcome share of both runs, caught included, so that each run's shares sum to 1."""
    summary = json.loads((compared / "summary.json").read_text())
    b = json.loads((runs / "b" / "summary.json").read_text())
    a = json.loads((runs / "a" / "summary.json").read_text())
    outcomes = {o["outcome"]: (o["a"], o["b"]) for o in summary["outcomes"]}
    assert set(outcomes) == set(a["fractions"]) | set(b["fractions"])
    assert outcomes["caught"] == (0.0, b["fractions"]["caught"])
    assert math.isclose(sum(v[0] for v in outcomes.values()), 1.0, abs_tol=1e-12)
    assert math.isclose(sum(v[1] for v in outcomes.values()), 1.0, abs_tol=1e-12)
    (fence,) = summary["barriers"]
    (ran,) = b["barriers"]
    assert fence["name"] == "fence" and fence["kind"] == {"a": None, "b": "net"}
    assert fence["rocks_crossing"] == {"a": None, "b": ran["rocks_crossing"]}
    assert fence["crossings_upslope"]["b"] == ran["crossings_upslope"]
    assert fence["E_d_kJ"] == {"a": None, "b": ran["design"]["E_d_kJ"]}
    assert fence["caught"]["b"] == ran["outcomes"]["caught"]
    table = (compared / "compare.md").read_text()
    assert "net 'fence': design energy E_d (kJ) | not in this run |" in table
    assert "| rocks caught by a net | 0 % |" in table
    main(["rockfall", "compare", str(runs / "a"), str(runs / "b"), "--out", str(runs / "c3")])
    assert "net 'fence': rocks crossing downslope" in capsys.readouterr().out


def test_barrier_comparison_takes_each_runs_values_of_a_line_both_runs_have():
    """A net in both runs (forest against none): the crossings and E_d of each run side by
    side; a line only B has is None in A."""

    def run(crossing, e_d, caught, lines=()):
        net = {
            "name": "net",
            "kind": "net",
            "rocks_crossing": crossing,
            "crossings_downslope": crossing + 2,
            "crossings_upslope": 1,
            "kinetic_energy_kJ": {"p95": 10.0 * e_d, "max": 20.0 * e_d},
            "design": {"E_d_kJ": e_d, "v_d_ms": 20.0, "h_d_m": 2.0},
            "outcomes": {"caught": caught, "overtopped": 0, "broke_through": 1},
        }
        return {"barriers": [net, *lines], "fractions": {"stopped": 0.5, "caught": 0.5}}

    line = {"name": "road", "kind": "line", "rocks_crossing": 3}
    rows = barrier_comparison(run(349, 4949.0, 300), run(60, 4437.0, 41, [line]))
    assert [r["name"] for r in rows] == ["net", "road"]
    assert rows[0]["rocks_crossing"] == {"a": 349, "b": 60}
    assert rows[0]["crossings_downslope"] == {"a": 351, "b": 62}
    assert rows[0]["E_d_kJ"] == {"a": 4949.0, "b": 4437.0}
    assert rows[0]["kinetic_energy_max_kJ"] == {"a": 98980.0, "b": 88740.0}
    assert rows[0]["caught"] == {"a": 300, "b": 41}
    assert rows[1]["kind"] == {"a": None, "b": "line"}
    assert rows[1]["rocks_crossing"] == {"a": None, "b": 3}
    shares = outcome_shares(
        {"fractions": {"stopped": 1.0}}, {"fractions": {"stopped": 0.59, "caught": 0.41}}
    )
    assert [(s["outcome"], s["a"], s["b"]) for s in shares] == [
        ("stopped", 1.0, 0.59),
        ("caught", 0.0, 0.41),
    ]
