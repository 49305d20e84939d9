"""``provenance.json``: what produced a result (version, command, configuration, seed, timings)."""

from __future__ import annotations

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


def git_hash() -> str | None:
    """The commit of the source tree, with ``-dirty`` if it has changes; None outside git."""
    root = Path(tumble.__file__).resolve().parents[2]
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


def provenance(config: dict, timings: dict | None = None, seed: int | None = None) -> dict:
    """A JSON-ready record of the run."""
    return {
        "tumble_version": tumble.__version__,
        "git": git_hash(),
        "command": sys.argv,
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config,
        "seed": seed,
        "timings_s": timings or {},
        "python": sys.version.split()[0],
        "packages": {name: _version(name) for name in ("numpy", "scipy", "numba", "rasterio")},
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }


def write_provenance(directory: str | os.PathLike, **kwargs: Any) -> None:
    path = Path(directory) / "provenance.json"
    path.write_text(json.dumps(provenance(**kwargs), indent=2, default=str) + "\n")
