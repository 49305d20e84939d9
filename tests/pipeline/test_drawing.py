"""The report's maps drawn in a forked copy of the run: the same pixels as drawn in the run's own
process, and an error of the copy fails the run with nothing of it left."""

from __future__ import annotations

import os
import signal
import sys

import numpy as np
import pytest
from PIL import Image

import tumble.pipeline.run as run_module
from tumble.io.lock import LOCK_NAME
from tumble.pipeline import RockfallRun
from tumble.pipeline.drawing import DrawingInBackground, can_draw_in_background

pytestmark = pytest.mark.skipif(
    not can_draw_in_background(1), reason="maps are drawn in a copy of the run only on Linux"
)

#: the default slope with its figures, in chunks
SETTINGS = {"rocks": 12, "seed": 5, "t_max": 6.0, "run.chunk_size": 5}


def _run(out):
    run = RockfallRun.from_config(settings=SETTINGS, overrides=["output.figures=true"])
    return run.run(out)


def _pixels(folder):
    return {
        p.name: np.asarray(Image.open(p).convert("RGBA"))
        for p in (folder / "figures").glob("*.png")
    }


def test_maps_drawn_in_a_copy_are_the_maps_drawn_in_the_run(tmp_path, monkeypatch):
    """Every figure (decoded pixels) and report.html's pages of the two paths are equal; the
    copy draws the maps (their files written by another process id)."""
    draw = run_module._report_maps
    record = tmp_path / "pids.txt"

    def recording(*args, **kwargs):
        with record.open("a") as f:  # the copy's memory is not the run's: a file
            f.write(f"{os.getpid()}\n")
        return draw(*args, **kwargs)

    def pids():
        pids = {int(line) for line in record.read_text().split()}
        record.unlink()
        return pids

    monkeypatch.setattr(run_module, "_report_maps", recording)
    forked = _run(tmp_path / "forked")
    assert len(pids() - {os.getpid()}) == 1  # drawn in the copy only
    monkeypatch.setattr(run_module, "can_draw_in_background", lambda cells: False)
    here = _run(tmp_path / "here")
    assert pids() == {os.getpid()}
    a, b = _pixels(forked.folder), _pixels(here.folder)
    assert sorted(a) == sorted(b) and any(name.startswith("report_") for name in a)
    for name in a:
        assert a[name].shape == b[name].shape and np.array_equal(a[name], b[name]), name
    page = (forked.folder / "report.html").read_text()
    assert page.count("<img ") == (here.folder / "report.html").read_text().count("<img ")
    assert page.count("<img ") == len(a)  # every map once, and the other figures once


def test_an_error_while_drawing_the_maps_fails_the_run_and_leaves_nothing(tmp_path, monkeypatch):
    """The copy's error is raised in the run as itself, with the copy's traceback as a note, and
    nothing of the write-out is left: no staging folder, no figure, no summary."""

    def broken(*args, **kwargs):
        raise ValueError("no colour for this map")

    monkeypatch.setattr(run_module, "_report_maps", broken)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="no colour for this map") as raised:
        _run(out)
    assert any("copy of the run's process" in note for note in raised.value.__notes__)
    # what a failed run leaves: its chunks (a resume reuses them) and its lock, no staging folder
    assert {p.name for p in out.iterdir()} <= {"chunks", LOCK_NAME}


def test_a_copy_that_dies_and_an_error_that_does_not_pickle_are_named():
    """A copy killed by a signal and an exception that cannot be pickled both raise a
    RuntimeError naming what was drawn; a copy's value comes back."""

    class Unpicklable(Exception):
        def __reduce__(self):
            raise TypeError("not picklable")

    def unpicklable():
        raise Unpicklable("x")

    with DrawingInBackground(lambda: [1.5, "a"], "drawing", background=True) as drawing:
        assert drawing.result() == [1.5, "a"]
    with (
        DrawingInBackground(unpicklable, "drawing the test maps", background=True) as drawing,
        pytest.raises(RuntimeError, match="drawing the test maps failed in its own process"),
    ):
        drawing.result()
    with (
        DrawingInBackground(
            lambda: os.kill(os.getpid(), signal.SIGKILL), "drawing the test maps", background=True
        ) as drawing,
        pytest.raises(RuntimeError, match=f"killed by signal {int(signal.SIGKILL)}"),
    ):
        drawing.result()


def test_leaving_early_stops_the_copy():
    """An error of the run before it asks for the maps kills the copy and reaps it."""
    import time

    with (
        pytest.raises(KeyError),
        DrawingInBackground(lambda: time.sleep(60), "drawing", background=True) as drawing,
    ):
        pid = drawing._pid
        raise KeyError("the run failed")
    assert pid is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_without_a_copy_the_maps_are_drawn_here():
    with DrawingInBackground(lambda: os.getpid(), "drawing", background=False) as drawing:
        assert drawing.result() == os.getpid()
    assert sys.platform.startswith("linux")
