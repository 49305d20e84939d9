"""``tumble spin``: every scheme on a flat body, a failed scheme reported while the others are
written, and the movie of the exact motion (or of a named scheme) with its frames and size."""

import csv
import json

import imageio.v2 as imageio
import numpy as np
import pytest

from tumble.cli.main import main
from tumble.freerot import SCHEMES, exact


def read_csv(path):
    rows = list(csv.DictReader(path.read_text().splitlines()))
    return {key: np.array([float(r[key]) for r in rows]) for key in rows[0]}


def test_every_scheme_runs_on_the_textbook_lamina(tmp_path, capsys):
    """Inertia (1, 2, 3) is a flat plate (A + B = C). Every scheme is written, and DIR.EM's
    angular velocity is within 2e-3 rad/s of the exact solution after 5 s at dt = 0.01 s."""
    out = tmp_path / "lamina"
    argv = ["spin", "--inertia", "1,2,3", "--omega0", "0.1,2,0.1", "--schemes", "all"]
    assert main([*argv, "--t-end", "5", "--out", str(out)]) == 0
    for name in SCHEMES:
        assert (out / f"trajectory_{name}.csv").exists()
    dir_em = read_csv(out / "trajectory_dir_em.csv")
    ref = exact((1.0, 2.0, 3.0), (0.1, 2.0, 0.1), (1.0, 0.0, 0.0, 0.0), dir_em["t"])
    omega = np.column_stack([dir_em[f"omega_{c}"] for c in "xyz"])
    assert np.abs(omega - ref.omega).max() < 2e-3
    assert "failed" not in capsys.readouterr().out


def test_a_failed_scheme_is_reported_and_the_others_are_written(tmp_path, capsys):
    """At dt = 0.05 s the discrete equations of QUAT.VI have no solution for the free body of
    Betsch & Siebert 2009 (W0 = (10, 20, 20) rad/s): exit status 1, the failure in drift.json,
    on the screen and in the provenance, every other scheme written."""
    out = tmp_path / "partial"
    argv = ["spin", "--inertia", "6,8,3", "--omega0", "10,20,20", "--schemes", "all"]
    assert main([*argv, "--dt", "0.05", "--t-end", "0.2", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "quat_vi failed" in captured.err and "no solution" in captured.err
    rows = {row["scheme"]: row for row in json.loads((out / "drift.json").read_text())}
    assert set(rows) == set(SCHEMES)
    assert "no solution" in rows["quat_vi"]["failed"]
    assert not (out / "trajectory_quat_vi.csv").exists()
    for name in set(SCHEMES) - {"quat_vi"}:
        assert (out / f"trajectory_{name}.csv").exists()
        assert "failed" not in rows[name]
    provenance = json.loads((out / "provenance.json").read_text())
    assert list(provenance["config"]["failed"]) == ["quat_vi"]


def test_when_every_scheme_fails_nothing_is_written(tmp_path, capsys):
    out = tmp_path / "none"
    argv = ["spin", "--inertia", "6,8,3", "--omega0", "10,20,20", "--schemes", "quat_vi"]
    assert main([*argv, "--dt", "0.05", "--t-end", "0.2", "--out", str(out)]) == 2
    assert "no scheme ran" in capsys.readouterr().err
    assert not out.exists()


def test_the_movie_films_the_exact_solution_by_default(tmp_path, capsys):
    """The runs are explicit and implicit; the movie is of the exact motion, with the frames,
    rate and size asked for."""
    movie = tmp_path / "poinsot.gif"
    argv = ["spin", "--t-end", "1", "--out", str(tmp_path / "spin"), "--animate", str(movie)]
    assert main([*argv, "--frames", "5", "--fps", "10", "--size", "320x180"]) == 0
    assert "filming exact: 5 frames of 320x180 px at 10 fps" in capsys.readouterr().out
    frames = imageio.mimread(movie)
    assert len(frames) == 5
    assert frames[0].shape[:2] == (180, 320)
    assert not (tmp_path / "spin" / "trajectory_exact.csv").exists()


def test_the_movie_films_a_named_scheme(tmp_path, capsys):
    movie = tmp_path / "explicit.gif"
    argv = ["spin", "--t-end", "1", "--out", str(tmp_path / "spin"), "--animate", str(movie)]
    argv += ["--animate-scheme", "explicit", "--frames", "3", "--size", "320x180"]
    assert main(argv) == 0
    assert "filming explicit: 3 frames" in capsys.readouterr().out
    assert len(imageio.mimread(movie)) == 3


def test_a_strobing_movie_is_warned_about(tmp_path, capsys):
    """10 rad/s over 5 s in 10 frames: the body turns about 290 degrees between frames."""
    movie = tmp_path / "fast.gif"
    argv = ["spin", "--t-end", "5", "--out", str(tmp_path / "spin"), "--animate", str(movie)]
    assert main([*argv, "--frames", "10", "--size", "320x180"]) == 0
    assert "will seem to jump" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--size", "1281x720", "even number"),
        ("--fps", "0", "positive integer"),
        ("--frames", "1", "number of frames"),
        ("--animate-scheme", "verlet", "unknown scheme"),
    ],
)
def test_bad_movie_options_are_refused(tmp_path, capsys, option, value, message):
    argv = ["spin", "--out", str(tmp_path / "x"), "--animate", str(tmp_path / "m.gif")]
    with pytest.raises(SystemExit) as info:
        main([*argv, option, value])
    assert info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_the_run_ends_at_t_end_or_is_refused(tmp_path, capsys):
    """--dt 0.3 --t-end 1: three steps and one of 0.1 s, the last row at t = 1 s; with
    --last-step refuse nothing is written and the message names t_end."""
    out = tmp_path / "short"
    assert main(["spin", "--dt", "0.3", "--t-end", "1", "--out", str(out)]) == 0
    rows = read_csv(out / "trajectory_implicit.csv")
    np.testing.assert_allclose(rows["t"], [0.0, 0.3, 0.6, 0.9, 1.0], rtol=1e-15)
    refused = tmp_path / "refused"
    argv = ["spin", "--dt", "0.3", "--t-end", "1", "--last-step", "refuse", "--out", str(refused)]
    assert main(argv) == 2
    assert "t_end = 1 s is not a whole number of steps" in capsys.readouterr().err
    assert not refused.exists()
