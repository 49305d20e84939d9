"""Result directories that never look complete when they are not.

:class:`ResultDir` collects every artefact of a command in a hidden staging directory next to the
target. Only when the command succeeds are the files moved into the target (one ``os.replace``
each, atomic per file on one file system); on an exception the staging directory is removed and
the target is left as it was. :func:`write_atomic` does the same for one file (JSON, ``.npz``).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import numpy as np
from numpy.typing import ArrayLike

from tumble.io import run_folder as layout
from tumble.io.lock import LOCK_NAME


class ResultDir:
    """Context manager: ``with ResultDir(out) as stage: ...`` writes into ``stage``.

    By default the staging folder is a hidden sibling of ``out``. With ``inside`` it is a hidden
    folder inside ``out`` (for a folder that already holds the work of the command, such as a
    run's chunks and lock), stale staging folders of a killed command are removed first, and the
    stage's path is absolute, so files found in it are found again from any folder. ``last``:
    file names moved into place after every other file (a run's ``summary.json``, whose presence
    marks it finished)."""

    def __init__(
        self, target: str | os.PathLike, *, inside: bool = False, last: tuple[str, ...] = ()
    ):
        self.target = Path(target)
        self.inside = inside
        self.last = tuple(last)
        self.stage: Path | None = None

    def __enter__(self) -> Path:
        if self.target.exists() and not self.target.is_dir():
            raise ValueError(f"--out {self.target} exists and is not a directory")
        if self.inside:
            self.target.mkdir(parents=True, exist_ok=True)
            for stale in self.target.glob(f"{PARTIAL_PREFIX}*"):  # left by a killed command
                shutil.rmtree(stale, ignore_errors=True)
            self.stage = Path(tempfile.mkdtemp(prefix=PARTIAL_PREFIX, dir=self.target)).resolve()
            return self.stage
        parent = self.target.resolve().parent
        parent.mkdir(parents=True, exist_ok=True)
        self.stage = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.partial-", dir=parent))
        return self.stage

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self.stage is not None
        try:
            if exc_type is None:
                self.target.mkdir(parents=True, exist_ok=True)
                paths = sorted(self.stage.rglob("*"))
                paths.sort(key=lambda p: p.name in self.last)  # stable: the rest keeps its order
                for path in paths:
                    rel = path.relative_to(self.stage)
                    dest = self.target / rel
                    if path.is_dir():
                        dest.mkdir(parents=True, exist_ok=True)
                    else:
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        os.replace(path, dest)
        finally:
            shutil.rmtree(self.stage, ignore_errors=True)


#: name prefix of the staging folder that :class:`ResultDir` makes inside its target
PARTIAL_PREFIX = ".outputs-partial-"


#: rows formatted and written at a time by :func:`write_csv` (bounds the strings held at once)
CSV_BLOCK_ROWS = 65536

#: characters that make the csv module quote a text field
_CSV_SPECIAL = (",", '"', "\r", "\n")


def _exact_integers(values: np.ndarray) -> bool:
    """Whether every integer of ``values`` is below 2^53 in magnitude: exact as a float64, and
    printed by ``%.17g`` as its decimal digits (no exponent below 10^17), as ``str`` prints it."""
    if values.size == 0:
        return True
    limit = 2**53
    return bool(int(values.max()) < limit and int(values.min()) > -limit)


#: values of a block probed for repeats before its column is formatted (:func:`_format_column`)
CSV_REPEAT_PROBE = 1024


def _format_column(values: np.ndarray, format_one: Callable[[object], str]) -> list[str]:
    """``format_one`` of every value of the 1-D numeric array ``values``, as a list of text.

    Where the first :data:`CSV_REPEAT_PROBE` values hold at least two of each (a column of
    ensemble rocks that share their release point, mass or time step), every distinct value is
    formatted once and the texts are taken from them: values are the same when their bits are
    (float64 compared as uint64, so that -0 and 0, and NaNs, are kept apart), so each text is the
    one the value gives by itself."""
    probe = values[:CSV_REPEAT_PROBE]
    keys = values.view(np.uint64) if values.dtype == np.float64 else values
    if values.size <= CSV_REPEAT_PROBE or 2 * np.unique(keys[: probe.size]).size > probe.size:
        return list(map(format_one, values.tolist()))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    texts = np.array(list(map(format_one, values[first].tolist())), dtype=object)
    return texts[inverse.ravel()].tolist()


def write_csv(
    path: str | os.PathLike, columns: Mapping[str, ArrayLike], precision: int = 17
) -> None:
    """Write equal-length 1-D columns as CSV with a header row; numbers at full float64
    precision, anything else as text.

    The file is the one :mod:`csv`'s writer gives (``\\r\\n`` line ends, fields quoted only when
    they must be), written a block of :data:`CSV_BLOCK_ROWS` rows at a time: each column's
    numbers formatted with one ``%``-format over the block (the same shortest-of-``precision``
    digits as ``format(float(v), f".{precision}g")``; a value that repeats in a column formatted
    once, :func:`_format_column`), the rows joined as text. A table whose
    text fields need quoting, or of a single column, goes through :mod:`csv` row by row."""
    names = list(columns)
    arrays = [np.asarray(columns[name]).ravel() for name in names]
    numeric = [np.issubdtype(a.dtype, np.number) for a in arrays]
    lengths = {a.shape[0] for a in arrays}
    if len(lengths) > 1:
        raise ValueError(f"columns of {path} have different lengths: {sorted(lengths)}")
    rows = lengths.pop() if lengths else 0
    number = f"%.{precision}g".__mod__
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(names)
        for start in range(0, rows, CSV_BLOCK_ROWS):
            block = []
            for a, num in zip(arrays, numeric, strict=True):
                part = a[start : start + CSV_BLOCK_ROWS]
                if num and part.dtype.kind in "iu" and _exact_integers(part):
                    block.append(_format_column(part, str))  # what %.17g prints for them
                elif num:
                    floats = np.ascontiguousarray(part, dtype=np.float64)
                    block.append(_format_column(floats, number))
                else:
                    block.append(list(map(str, part.tolist())))
            texts = {t for col, n in zip(block, numeric, strict=True) if not n for t in col}
            plain = len(block) > 1 and not any(c in t for t in texts for c in _CSV_SPECIAL)
            if plain:
                handle.write("\r\n".join(map(",".join, zip(*block, strict=True))) + "\r\n")
            else:
                writer.writerows(zip(*block, strict=True))


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through ``write(tmp)`` into a temporary file beside it, then rename it into
    place: the file is complete or absent, never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        # mkstemp creates the file readable by its owner only: give it the mode of a plain file
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, content: dict) -> None:
    """JSON (indented, one trailing newline) written atomically."""
    text = json.dumps(content, indent=2, default=str) + "\n"
    write_atomic(Path(path), lambda tmp: tmp.write_text(text))


#: zlib level of compressed ``.npz`` files: the fastest; on a slope40 chunk of 100 rocks it
#: writes in a third of the time of numpy's default level 6 for a file 4 % larger
NPZ_LEVEL = 1


def write_npz_atomic(path: Path, arrays: dict[str, np.ndarray], compress: bool = False) -> Path:
    """Arrays as one ``.npz`` file (deflated at :data:`NPZ_LEVEL` with ``compress``), written
    atomically; :func:`numpy.load` reads it."""

    def write(tmp: Path) -> None:
        if not compress:
            with open(tmp, "wb") as handle:
                # numpy's stub lets **arrays reach savez's keyword allow_pickle: bool, which no
                # array name here is; stubs of older numpy lack that keyword
                np.savez(handle, **arrays)  # type: ignore[arg-type, unused-ignore]
            return
        with open(tmp, "wb") as handle:
            savez_deflated(handle, arrays)

    write_atomic(Path(path), write)
    return Path(path)


def savez_deflated(handle: BinaryIO, arrays: dict[str, np.ndarray]) -> None:
    """numpy's ``.npz`` layout (one ``.npy`` member per array) deflated at :data:`NPZ_LEVEL`,
    written to the open binary ``handle``."""
    with zipfile.ZipFile(
        handle, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=NPZ_LEVEL
    ) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)


def read_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file (no pickled objects)."""
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def is_result_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a result of tumble: its ``provenance.json`` names tumble, or it
    holds the chunks of an unfinished run (``chunks/manifest.json``)."""
    folder = Path(path)
    if (folder / layout.CHUNKS / layout.MANIFEST).is_file():
        return True
    try:
        record = json.loads((folder / layout.PROVENANCE).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and "tumble_version" in record


def check_result_target(out: str | os.PathLike) -> Path:
    """``out`` as a Path if a command may write a result there: ValueError for an empty name,
    a file, or a folder (or its nearest existing parent) this process may not write in."""
    if str(out).strip() == "":
        raise ValueError(
            "--out must name a folder (an empty name would write into the working one)"
        )
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {folder} exists and is not a folder")
    writable = folder.absolute()
    while not writable.exists():
        writable = writable.parent
    if not writable.is_dir():
        raise ValueError(f"--out {folder}: {writable} is a file, not a folder")
    if not os.access(writable, os.W_OK | os.X_OK):
        raise ValueError(f"--out {folder}: permission denied to write in {writable}")
    return folder


def prepare_result_dir(
    out: str | os.PathLike, *, force: bool = False, resume: bool | None = False
) -> str:
    """Decide what a command may do with its output folder ``out`` before any work.

    Returns ``"new"`` (absent or empty), ``"resume"`` (a tumble result, with ``resume``) or
    ``"replaced"`` (a tumble result removed as a whole, with ``force``). Refuses an empty name,
    a file, a folder (or its nearest existing parent) this process may not write in, a tumble
    result without ``--resume``/``--force``, and any non-empty folder that is not a tumble
    result (never touched, even with ``force``). ``resume`` None: the command cannot resume,
    and its refusal names ``--force`` alone.
    """
    folder = check_result_target(out)
    entries = [p for p in folder.iterdir() if p.name != LOCK_NAME] if folder.exists() else []
    if not entries:
        return "new"
    if not is_result_dir(folder):
        raise ValueError(
            f"--out {folder} is not empty and holds no tumble result; it is left untouched "
            "(choose another --out)"
        )
    if resume:
        return "resume"
    if force:
        # everything but the lock of this run (:mod:`tumble.io.lock`)
        for entry in entries:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        return "replaced"
    if resume is None:
        raise ValueError(f"--out {folder} holds an earlier result; --force replaces it as a whole")
    raise ValueError(
        f"--out {folder} holds an earlier result; --resume finishes (or reuses) it, --force "
        "replaces it as a whole"
    )
