"""A run folder as a deliverable: refused reruns, --force and --resume, chunks cleaned up, honest
warnings, progress lines, Ctrl-C, and a provenance a checking engineer can follow."""

import argparse
import hashlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from tumble.cli.main import main
from tumble.rockfall import Terrain

CRS = "EPSG:2056"


@pytest.fixture(scope="module")
def dem(tmp_path_factory):
    """A 50 m long, 30 m wide 35 degree slope with a 20 m flat foot, 1 m grid, Swiss CRS."""
    x = np.arange(51.0)
    z = np.maximum(30.0 - x, 0.0) * math.tan(math.radians(35.0))
    terrain = Terrain.from_array(
        np.broadcast_to(z, (31, 51)), x0=2600000.0, y0=1200000.0, dx=1.0, crs=CRS
    )
    path = tmp_path_factory.mktemp("dem") / "slope.tif"
    terrain.write(path)
    return path


def run(dem, out, *extra) -> int:
    argv = ["rockfall", "run", "--dem", str(dem), "--release", "2600003,1200015"]
    argv += ["--t-max", "6", "--rocks", "4", "--no-figures", "--out", str(out), *extra]
    return main(argv)


def _values(data):
    if isinstance(data, dict):
        for value in data.values():
            yield from _values(value)
    elif isinstance(data, list):
        for value in data:
            yield from _values(value)
    else:
        yield data


def test_a_second_run_is_refused_and_force_replaces_the_whole_result(dem, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(dem, out) == 0
    assert not (out / "chunks").exists()  # removed after a successful run
    stale = out / "rasters" / "from_an_older_version.tif"
    stale.write_bytes(b"old")
    assert run(dem, out) == 2
    err = capsys.readouterr().err
    assert "--force" in err and "--resume" in err
    assert stale.exists()
    assert run(dem, out, "--force", "--keep-chunks") == 0
    assert not stale.exists()
    assert (out / "chunks" / "manifest.json").is_file()
    assert (out / "summary.json").is_file()


def test_a_folder_that_is_not_a_result_is_never_touched(dem, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    for extra in ((), ("--force",), ("--resume",)):
        assert run(dem, out, *extra) == 2
        assert "not empty and holds no tumble result" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    assert run(dem, "") == 2
    assert "--out must name a folder" in capsys.readouterr().err


def test_resume_of_a_finished_run_names_what_differs(dem, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(dem, out, "--seed", "1") == 0
    capsys.readouterr()
    assert run(dem, out, "--seed", "1", "--resume") == 0
    assert "nothing to do" in capsys.readouterr().out
    assert run(dem, out, "--seed", "9", "--resume") == 2
    err = capsys.readouterr().err
    assert "seed 1 in the chunks, 9 now" in err


def test_censored_statistics_are_said_on_screen_and_in_the_summary(dem, tmp_path, capsys):
    """With t_max = 0.2 s every rock is still moving: the summary and the screen say so, with
    the exact fraction, and the summary line does not round it."""
    out = tmp_path / "short"
    assert run(dem, out, "t_max=0.2") == 0
    captured = capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["fractions"]["timed_out"] == 1.0
    [warning] = summary["warnings"]
    assert warning.startswith("100 % of the rocks were still moving at t_max = 0.2 s")
    assert "lower bound" in warning
    assert "warning: 100 % of the rocks were still moving" in captured.err
    assert "timed out 100 %" in captured.out


def test_progress_lines_off_a_terminal_and_quiet(dem, tmp_path, capsys):
    assert run(dem, tmp_path / "a") == 0
    err = capsys.readouterr().err
    assert "rocks 4/4 (100 %)" in err and "M rock-steps/s" in err
    assert run(dem, tmp_path / "b", "--quiet") == 0
    assert "rock-steps/s" not in capsys.readouterr().err


def test_provenance_is_resolved_and_hashes_the_inputs(dem, tmp_path):
    out = tmp_path / "run"
    assert run(dem, out, "--seed", "3") == 0
    record = json.loads((out / "provenance.json").read_text())
    resolved = record["config"]["resolved"]
    assert None not in list(_values(resolved)), "every default is written as the value used"
    assert resolved["solver"]["pgs_tol"] == 1e-6 and resolved["solver"]["gravity"] == 9.81
    assert resolved["release"]["height"] == 1.5 and resolved["seed"] == 3
    assert resolved["rock"]["mass"] == pytest.approx(780.0)
    digest = hashlib.sha256(dem.read_bytes()).hexdigest()
    assert record["inputs"]["dem"] == {"path": str(dem.resolve()), "sha256": digest}
    [session] = record["sessions"]
    assert session["chunks"] == 1 and session["cpu_time_s"] > 0
    for package in ("numpy", "numba", "rasterio", "pydantic"):
        assert record["packages"][package]
    assert record["command"]


def test_every_option_of_every_command_says_what_it_is():
    """A help text on every option and argument (the argparse default ``--help`` aside), and
    the run's help names an example configuration that exists."""
    from tumble.cli.main import build_parser

    def parsers(parser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from parsers(sub)

    missing = []
    for parser in parsers(build_parser()):
        for action in parser._actions:
            if action.help is None and action.dest != "help" and action.option_strings:
                missing.append(f"{parser.prog} {'/'.join(action.option_strings)}")
    assert missing == []


def test_ctrl_c_exits_130_with_the_resume_command_and_resume_finishes(dem, tmp_path):
    """SIGINT to a real run once its first chunk is written: exit status 130, one line naming
    the exact --resume command, no traceback, no summary; the resume then finishes the run."""
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "tumble.cli.main", "rockfall", "run", "--dem", str(dem)]
    # enough rocks on one thread that the run is still going when the signal arrives, even
    # with the kernels cached and the machine idle
    argv += ["--release", "2600003,1200015", "--rocks", "3000", "--chunk-size", "10"]
    argv += ["--threads", "1"]
    argv += ["--no-figures", "--quiet", "--out", str(out)]
    # a test runner started in the background inherits SIGINT ignored; the run under test must
    # see Ctrl-C as a user's terminal delivers it
    process = subprocess.Popen(
        argv,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # the first chunk file (written under a temporary name, then renamed): the session has
    # finished a chunk, so it counts as one of the run's sessions
    first = out / "chunks" / "chunk_000000.npz"
    deadline = time.monotonic() + 300
    while not first.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    [line] = [text for text in stderr.splitlines() if "interrupted" in text]
    assert line.endswith("--quiet --out " + str(out) + " --resume"), line
    assert not (out / "summary.json").exists()
    assert not list(out.glob(".outputs-partial-*"))
    resume = line.split("finish it with: ", 1)[1].split()[1:]
    env = dict(os.environ)
    finished = subprocess.run(
        [sys.executable, "-m", "tumble.cli.main", *resume], capture_output=True, text=True, env=env
    )
    assert finished.returncode == 0, finished.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_rocks"] == 3000 and summary["sessions"] == 2


def test_an_interrupt_raised_inside_a_kernel_callback_exits_130(capsys):
    """Ctrl-C that arrives while a compiled kernel calls back into Python surfaces as a
    SystemError caused by the KeyboardInterrupt (numba's unpickling of a constant): it exits
    130 with the resume line like a plain KeyboardInterrupt; a SystemError without one is not
    swallowed."""
    import argparse

    from tumble.cli.common import INTERRUPTED, run_parsed

    def kernel_call(_args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as inner:
            raise SystemError("returned a result with an exception set") from inner

    args = argparse.Namespace(run=kernel_call, resume_hint="tumble rockfall run --resume")
    assert run_parsed(args, "rockfall run") == INTERRUPTED == 130
    err = capsys.readouterr().err
    assert (
        err.strip()
        == "tumble rockfall run: interrupted; finish it with: tumble rockfall run --resume"
    )

    def broken(_args):
        raise SystemError("a real failure")

    with pytest.raises(SystemError, match="a real failure"):
        run_parsed(argparse.Namespace(run=broken), "rockfall run")


def test_the_printed_line_gives_the_summary_s_statistics_by_name(dem, tmp_path, capsys):
    """The line a run ends with: each energy and run-out number follows the name of its
    statistic and equals that statistic of summary.json to the 0.1 printed."""
    out = tmp_path / "line"
    assert run(dem, out, "--rocks", "8") == 0
    [line] = [k for k in capsys.readouterr().out.splitlines() if k.startswith("8 rocks (")]
    summary = json.loads((out / "summary.json").read_text())
    energy, runout = summary["kinetic_energy_kJ"]["rock_max"], summary["runout_m"]
    named = {"median": "p50", "mean": "mean", "p95": "p95", "max": "max"}
    found = re.findall(r"(median|mean|p95|max) ([0-9.]+) (kJ|m)\b", line)
    assert len(found) == 7
    for name, value, unit in found:
        expected = (energy if unit == "kJ" else runout)[named[name]]
        assert float(value) == pytest.approx(expected, abs=0.05)
    assert f"max {energy['max']:.1f} kJ" in line and f"run-out: mean {runout['mean']:.1f} m" in line
