"""``provenance.json``: what produced a result (version, command, configuration, seed, timings)."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import tumble
from tumble.io.run_folder import PROVENANCE


def git_hash() -> str | None:
    """The commit of the source tree, with ``-dirty`` if it has changes; None outside git and
    for an installed package (whose folder may lie inside someone else's repository)."""
    root = Path(tumble.__file__).resolve().parents[2]  # the checkout of src/tumble
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


#: the packages whose versions a provenance record lists
PACKAGES = (
    "numpy",
    "scipy",
    "numba",
    "rasterio",
    "pyarrow",
    "pydantic",
    "matplotlib",
    "trimesh",
    "shapely",
    "pyogrio",
)


def sha256_file(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def input_files(paths: dict[str, Path]) -> dict[str, dict[str, str]]:
    """``key -> {"path", "sha256"}`` of every input file a run read."""
    return {
        key: {"path": str(Path(path).resolve()), "sha256": sha256_file(path)}
        for key, path in paths.items()
    }


def provenance(
    config: dict,
    timings: dict | None = None,
    seed: int | None = None,
    inputs: dict[str, Path] | None = None,
    sessions: list[dict] | None = None,
) -> dict:
    """A JSON-ready record of the run: version and source state of tumble, command line, the
    resolved configuration, seed, timings (and every session of a resumed run: wall and CPU
    time), the SHA-256 of every input file, the versions of the main dependencies."""
    return {
        "tumble_version": tumble.__version__,
        "git": git_hash(),
        "command": sys.argv,
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config,
        "seed": seed,
        "timings_s": timings or {},
        "sessions": sessions or [],
        "inputs": input_files(inputs or {}),
        "python": sys.version.split()[0],
        "packages": {name: _version(name) for name in PACKAGES},
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }


def write_provenance(directory: str | os.PathLike, **kwargs: Any) -> dict:
    """Write ``provenance.json`` (:func:`provenance` of ``kwargs``) and return the record."""
    record = provenance(**kwargs)
    path = Path(directory) / PROVENANCE
    path.write_text(json.dumps(record, indent=2, default=str) + "\n")
    return record
