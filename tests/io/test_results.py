"""Atomic writes: complete or absent, with the permissions of a plain file."""

import os
import stat

import pytest

from tumble.io.results import write_atomic, write_json_atomic


def test_an_atomic_file_has_the_mode_a_plain_file_would_have(tmp_path):
    umask = os.umask(0o022)
    try:
        write_json_atomic(tmp_path / "a.json", {"x": 1})
        (tmp_path / "plain.txt").write_text("x")
    finally:
        os.umask(umask)
    mode = stat.S_IMODE((tmp_path / "a.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode) == 0o644


def test_a_failed_write_leaves_nothing(tmp_path):
    def fail(tmp):
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(tmp_path / "b.txt", fail)
    assert list(tmp_path.iterdir()) == []
