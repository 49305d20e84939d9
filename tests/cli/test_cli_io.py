"""The command line and the result directories: outputs appear only when a command succeeds."""

import csv
import json

import numpy as np
import pytest

from tumble.cli.main import main
from tumble.io import ResultDir, write_csv


def test_result_dir_is_left_untouched_on_failure(tmp_path):
    target = tmp_path / "run"
    with pytest.raises(RuntimeError), ResultDir(target) as stage:
        (stage / "half.csv").write_text("a,b\n")
        raise RuntimeError("boom")
    assert not target.exists()
    assert not any(p.name.startswith(".run.partial") for p in tmp_path.iterdir())


def test_result_dir_moves_files_on_success(tmp_path):
    target = tmp_path / "run"
    with ResultDir(target) as stage:
        (stage / "sub").mkdir()
        (stage / "sub" / "x.txt").write_text("1")
        assert not target.exists()
    assert (target / "sub" / "x.txt").read_text() == "1"
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_write_csv_keeps_full_precision(tmp_path):
    values = np.array([1 / 3, np.pi, -1e-300])
    write_csv(tmp_path / "t.csv", {"name": np.array(["a", "b", "c"]), "x": values})
    rows = list(csv.DictReader((tmp_path / "t.csv").read_text().splitlines()))
    assert [r["name"] for r in rows] == ["a", "b", "c"]
    np.testing.assert_array_equal([float(r["x"]) for r in rows], values)
    with pytest.raises(ValueError, match="different lengths"):
        write_csv(tmp_path / "u.csv", {"a": np.zeros(2), "b": np.zeros(3)})


def test_spin_command_writes_trajectories_drift_and_figures(tmp_path, capsys):
    out = tmp_path / "spin"
    code = main(["spin", "--schemes", "explicit,implicit", "--t-end", "2", "--out", str(out)])
    assert code == 0
    names = {p.name for p in out.iterdir()}
    assert {"omega.png", "drift.png", "drift.json", "provenance.json"} <= names
    assert {"trajectory_explicit.csv", "trajectory_implicit.csv"} <= names
    drift = {row["scheme"]: row for row in json.loads((out / "drift.json").read_text())}
    assert drift["implicit"]["max_spin_drift"] < 1e-12
    assert drift["explicit"]["max_energy_drift"] < 1e-12
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["config"]["dt"] == 0.01
    assert prov["config"]["inertia"] == pytest.approx([5 / 12, 10 / 12, 13 / 12])
    rows = list(csv.DictReader((out / "trajectory_implicit.csv").read_text().splitlines()))
    assert len(rows) == 201
    assert "implicit" in capsys.readouterr().out


def test_spin_command_refuses_bad_input_without_writing(tmp_path, capsys):
    out = tmp_path / "bad"
    assert main(["spin", "--inertia", "1,1,3", "--out", str(out)]) == 2
    assert "triangle inequality" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(SystemExit):
        main(["spin", "--schemes", "verlet", "--out", str(out)])
    assert "unknown scheme" in capsys.readouterr().err
