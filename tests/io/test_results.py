"""Atomic writes: complete or absent, with the permissions of a plain file."""

import os
import stat

import numpy as np
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


def _csv_row_by_row(path, columns, precision=17):
    """The table as the csv module writes it one row at a time: the reference of write_csv."""
    import csv

    arrays = [np.asarray(columns[name]).ravel() for name in columns]
    numeric = [np.issubdtype(a.dtype, np.number) for a in arrays]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(list(columns))
        for row in zip(*arrays, strict=True):
            writer.writerow(
                [
                    format(float(v), f".{precision}g") if num else str(v)
                    for v, num in zip(row, numeric, strict=True)
                ]
            )


@pytest.mark.parametrize("text", ["plain", "with, comma", 'with "quote"', "two\nlines", ""])
def test_write_csv_in_blocks_gives_the_bytes_of_the_csv_module(tmp_path, monkeypatch, text):
    """The block writer of write_csv gives, byte for byte, the file of the csv module written
    row by row: floats of every magnitude, NaN, infinities, -0, float32, integers beyond 2**53
    and about it (blocks that hold one and blocks that do not), small signed integers,
    booleans, and text that needs quoting or not, over several blocks and a partial last one."""
    from tumble.io import results

    monkeypatch.setattr(results, "CSV_BLOCK_ROWS", 7)
    rng = np.random.default_rng(3)
    n = 30
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    x[:5] = [np.nan, np.inf, -np.inf, -0.0, 0.1]
    columns = {
        "x": x,
        "f32": rng.standard_normal(n).astype(np.float32),
        "k": rng.integers(-(2**62), 2**62, n),
        "u": np.arange(n, dtype=np.uint32),
        # integers printed as their digits below 2**53 in magnitude, through %.17g from it on
        "near": np.array([2**53 - 1, -(2**53) + 1, 2**53, -(2**53) - 1, 10**16, 10**17] * 5)
        * np.where(np.arange(n) < 7, 1, -1)
        + np.where(np.arange(n) % 6 == 2, 0, np.arange(n) % 3),
        "small": np.arange(n, dtype=np.int16) - 15,
        "flag": rng.random(n) < 0.5,
        "name": np.array([text if i % 3 == 0 else f"area {i}" for i in range(n)], dtype=object),
    }
    results.write_csv(tmp_path / "blocks.csv", columns)
    _csv_row_by_row(tmp_path / "rows.csv", columns)
    assert (tmp_path / "blocks.csv").read_bytes() == (tmp_path / "rows.csv").read_bytes()
    # one column, and no rows
    for name, table in [("one", {"name": columns["name"]}), ("none", {"x": np.zeros(0)})]:
        results.write_csv(tmp_path / f"{name}_blocks.csv", table)
        _csv_row_by_row(tmp_path / f"{name}_rows.csv", table)
        assert (tmp_path / f"{name}_blocks.csv").read_bytes() == (
            tmp_path / f"{name}_rows.csv"
        ).read_bytes()


@pytest.mark.parametrize("probe", [8, 1024])
def test_columns_that_repeat_their_values_give_the_bytes_of_the_csv_module(
    tmp_path, monkeypatch, probe
):
    """Columns whose values repeat (formatted once per distinct value) give, byte for byte, the
    file of the csv module written row by row: repeated floats of every magnitude and sign,
    NaNs of two bit patterns, -0 beside 0, infinities, float32, repeated integers of both
    signs and beyond 2**53, over blocks that repeat and blocks that do not."""
    from tumble.io import results

    monkeypatch.setattr(results, "CSV_REPEAT_PROBE", probe)
    monkeypatch.setattr(results, "CSV_BLOCK_ROWS", 3 * probe)
    rng = np.random.default_rng(5)
    n = 10 * probe + 7
    pool = rng.standard_normal(9) * 10.0 ** rng.integers(-300, 300, 9)
    other_nan = np.array([0x7FF8000000000001], dtype=np.uint64).view(np.float64)[0]
    pool = np.concatenate([pool, [np.nan, other_nan, -np.nan, 0.0, -0.0, np.inf, -np.inf]])
    repeated = pool[rng.integers(0, pool.size, n // 4 + 1)].repeat(4)[:n]  # runs of 4
    distinct = rng.standard_normal(n) * 1e5
    # repeats in the first and third blocks only, distinct values in the second
    mixed = np.where((np.arange(n) // (3 * probe)) % 2 == 1, distinct, repeated)
    with np.errstate(over="ignore"):  # beyond float32: infinities, as the csv module prints them
        f32 = repeated.astype(np.float32)
    columns = {
        "rock": np.arange(n),
        "repeated": repeated,
        "mixed": mixed,
        "f32": f32,
        "steps": rng.integers(-2, 2, n) * 7,
        "big": np.array([2**53 + 1, -(2**60), 5])[rng.integers(0, 3, n)],
        "t_s": np.full(n, 0.1),
        "status": np.array(["timed_out", "stopped"], dtype=object)[rng.integers(0, 2, n)],
    }
    results.write_csv(tmp_path / "blocks.csv", columns)
    _csv_row_by_row(tmp_path / "rows.csv", columns)
    assert (tmp_path / "blocks.csv").read_bytes() == (tmp_path / "rows.csv").read_bytes()
