"""Observation files and ``--free`` fields that ``tumble rockfall calibrate`` refuses: the row,
column or field named, exit status 2 and nothing written in ``--out``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tumble.cli.main import main
from tumble.rockfall.terrain import Terrain

HEADER = "release_x,release_y,shape,mass,stop_x,stop_y"
GOOD = "5,0,eota221,400,30,0"


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    heights = np.array([[np.nan, *([0.0] * 40)]] * 21) + np.linspace(20, 0, 41)
    Terrain.from_array(heights, x0=0.0, y0=-10.0, dx=1.0).write(folder / "dem.asc")
    (folder / "site.toml").write_text('dem = "dem.asc"\nt_max = 5\n')
    return folder / "site.toml"


def refused(config: Path, tmp_path: Path, rows: list[str], *extra: str, capsys) -> str:
    path = tmp_path / "stops.csv"
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "calib"
    argv = ["rockfall", "calibrate", "--config", str(config), "--observations", str(path)]
    code = main([*argv, "--points", "2", "--out", str(out), *extra])
    assert code == 2
    assert not out.exists()
    assert not list(tmp_path.glob(".calib*"))
    return capsys.readouterr().err


def test_a_missing_column_is_named(config, tmp_path, capsys):
    err = refused(
        config,
        tmp_path,
        ["release_x,release_y,shape,mass,stop_x", "5,0,eota221,400,30"],
        capsys=capsys,
    )
    assert "column stop_y is missing" in err


def test_a_negative_mass_names_its_row_and_column(config, tmp_path, capsys):
    err = refused(config, tmp_path, [HEADER, GOOD, GOOD, "5,1,eota221,-3,30,0"], capsys=capsys)
    assert "row 3, column mass: must be positive" in err


def test_a_row_off_the_dem_is_named(config, tmp_path, capsys):
    err = refused(config, tmp_path, [HEADER, GOOD, "5,0,eota221,400,300,0"], capsys=capsys)
    assert "row 2, column stop_x, stop_y" in err
    assert "outside the DEM" in err


def test_a_stop_in_nodata_is_named(config, tmp_path, capsys):
    err = refused(config, tmp_path, [HEADER, GOOD, "5,0,eota221,400,0.5,0"], capsys=capsys)
    assert "row 2, column stop_x, stop_y" in err
    assert "nodata" in err


def test_an_unknown_free_field_is_named(config, tmp_path, capsys):
    err = refused(config, tmp_path, [HEADER, GOOD], "--free", "rolling=0:1", capsys=capsys)
    assert "unknown soil field 'rolling'" in err
    assert "rolling_resistance" in err


def test_a_text_in_a_number_column_is_named(config, tmp_path, capsys):
    err = refused(config, tmp_path, [HEADER, "5,0,eota221,heavy,30,0"], capsys=capsys)
    assert "row 1, column mass: 'heavy' is not a number" in err
