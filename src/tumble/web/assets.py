"""three.js and lil-gui as the package ships them: the files the pages load, under ``vendor/``.

The pages (``static/index.html``, ``static/view/index.html``) map ``three``, ``three/addons/``
and ``lil-gui`` to ``/vendor/...`` in their importmaps; the servers serve :data:`VENDOR_DIR` there.
:data:`VENDOR_DIR` holds, per npm package, exactly the files the pages load (the modules the
importmaps name and what those import), the package's licence and its ``package.json`` (which
records the version), each byte for byte as in the npm package pinned in ``package-lock.json``.
They are committed, so an installed package (wheel, sdist, editable) serves them without npm or
a network; ``tests/web/test_vendor.py`` checks them against ``node_modules`` (filled by ``npm
ci``, as ``make test`` does) and the pinned versions.

After a version bump in ``package.json``: ``npm install`` (or ``npm ci``) in this directory,
then ``python -m tumble.web.assets`` (``make vendor``) copies the files again.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the vendored front-end packages, served under /vendor/<name>/
VENDOR_DIR = HERE / "vendor"
#: where ``npm ci`` installs the pinned packages (development only; not in the package)
NODE_MODULES = HERE / "node_modules"
#: per npm package, the files kept: its package.json and licence, then the modules the pages load
VENDOR_FILES: dict[str, tuple[str, ...]] = {
    "three": (
        "package.json",
        "LICENSE",
        "build/three.module.js",
        "build/three.core.js",
        "examples/jsm/controls/OrbitControls.js",
    ),
    "lil-gui": (
        "package.json",
        "LICENSE.md",
        "dist/lil-gui.esm.js",
    ),
}


def missing_vendor(root: Path = VENDOR_DIR) -> list[str]:
    """The files of :data:`VENDOR_FILES` that are not under ``root``, as ``name/path``."""
    return [
        f"{name}/{file}"
        for name, files in VENDOR_FILES.items()
        for file in files
        if not (root / name / file).is_file()
    ]


def copy_vendor(source: Path = NODE_MODULES, target: Path = VENDOR_DIR) -> list[Path]:
    """Replace each package's folder under ``target`` by the files of :data:`VENDOR_FILES`
    copied from ``source`` (a ``node_modules`` folder); returns the files written.
    FileNotFoundError naming the missing files (and ``npm ci``) before anything is removed."""
    missing = missing_vendor(source)
    if missing:
        raise FileNotFoundError(f"{source} lacks {', '.join(missing)}; run `npm ci` in {HERE}")
    written = []
    for name, files in VENDOR_FILES.items():
        stage = target / f".{name}.tmp"
        shutil.rmtree(stage, ignore_errors=True)
        for file in files:
            (stage / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / name / file, stage / file)
        shutil.rmtree(target / name, ignore_errors=True)
        stage.rename(target / name)
        written += [target / name / file for file in files]
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tumble.web.assets",
        description="Copy the files the pages load from node_modules (npm ci) into vendor/.",
    )
    parser.add_argument("--from", dest="source", type=Path, default=NODE_MODULES)
    args = parser.parse_args(argv)
    try:
        written = copy_vendor(args.source)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files to {VENDOR_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
