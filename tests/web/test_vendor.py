"""The vendored three.js and lil-gui (``tumble/web/vendor``): exactly the files the pages load,
byte for byte the npm packages pinned in ``package-lock.json``, at the pinned versions."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tumble.web.assets import NODE_MODULES, VENDOR_DIR, VENDOR_FILES, copy_vendor, missing_vendor

WEB = VENDOR_DIR.parent
STATIC = WEB / "static"
#: each page's folder: its index.html, and what its /static/ URLs map to
PAGES = {"poinsot": STATIC, "view": STATIC / "view"}


def _load(name: str):
    path = Path(__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


page_modules = _load("page_modules")


def loaded_modules(page: str) -> set[str]:
    """Every module URL the page loads, read from the files the servers answer them with."""
    static = PAGES[page]

    def read(url: str) -> str:
        if url.startswith("/static/"):
            return (static / url.removeprefix("/static/")).read_text(encoding="utf-8")
        if url.startswith("/vendor/"):
            return (VENDOR_DIR / url.removeprefix("/vendor/")).read_text(encoding="utf-8")
        raise AssertionError(
            f"the {page} page loads {url}, served by neither /static/ nor /vendor/"
        )

    return page_modules.loaded_modules((static / "index.html").read_text(), read)


def test_import_scanner_reads_multiline_imports_and_skips_comments():
    text = (
        "import * as THREE from 'three';\n"
        'import {\n  A,\n  B\n} from "./a.js";\n'
        "export { C } from './c.js';\n"
        " * @example import { D } from 'three/addons/d.js';\n"
        "// import E from 'e';\n"
        "export function f() { return 'x'; }\n"
    )
    assert page_modules.IMPORT.findall(text) == ["three", "./a.js", "./c.js"]
    imports = {"three": "/vendor/three/build/three.module.js", "three/addons/": "/v/jsm/"}
    resolve = page_modules.resolve
    assert resolve("three/addons/controls/X.js", "/static/m.js", imports) == "/v/jsm/controls/X.js"
    assert resolve("three", "/static/m.js", imports) == "/vendor/three/build/three.module.js"
    assert resolve("../b.js", "/vendor/three/build/m.js", imports) == "/vendor/three/b.js"
    with pytest.raises(ValueError, match="importmap"):
        resolve("lil-gui", "/static/m.js", imports)


def test_vendor_holds_exactly_the_files_the_pages_load():
    """The modules both pages load from /vendor/ are the vendored modules (every file of
    :data:`VENDOR_FILES` but each package's package.json and licence), and nothing else is in
    the vendored packages' folders."""
    loaded = set().union(*(loaded_modules(page) for page in PAGES))
    vendored = {
        f"/vendor/{name}/{file}"
        for name, files in VENDOR_FILES.items()
        for file in files
        if file.endswith(".js")
    }
    assert {url for url in loaded if url.startswith("/vendor/")} == vendored
    assert "/vendor/three/build/three.core.js" in vendored  # three.module.js imports it
    assert missing_vendor() == []
    for name, files in VENDOR_FILES.items():
        present = {
            p.relative_to(VENDOR_DIR / name).as_posix() for p in (VENDOR_DIR / name).rglob("*")
        }
        present = {file for file in present if (VENDOR_DIR / name / file).is_file()}
        assert present == set(files), name


def test_vendored_versions_are_the_pinned_ones():
    """Each vendored package.json (copied from the npm package) has the version that
    package.json pins and package-lock.json resolved."""
    pinned = json.loads((WEB / "package.json").read_text())["dependencies"]
    lock = json.loads((WEB / "package-lock.json").read_text())["packages"]
    assert set(pinned) == set(VENDOR_FILES)
    for name in VENDOR_FILES:
        vendored = json.loads((VENDOR_DIR / name / "package.json").read_text())
        assert vendored["name"] == name
        assert vendored["version"] == lock[f"node_modules/{name}"]["version"] == pinned[name]
        assert vendored["license"] == lock[f"node_modules/{name}"]["license"] == "MIT"


@pytest.mark.skipif(
    not all((NODE_MODULES / name / "package.json").is_file() for name in VENDOR_FILES),
    reason=f"no npm packages in {NODE_MODULES} (run `npm ci` there; `make test` does)",
)
def test_vendored_files_are_the_npm_packages_byte_for_byte():
    installed = json.loads((NODE_MODULES / ".package-lock.json").read_text())["packages"]
    lock = json.loads((WEB / "package-lock.json").read_text())["packages"]
    for name, files in VENDOR_FILES.items():
        key = f"node_modules/{name}"
        assert installed[key]["integrity"] == lock[key]["integrity"], f"run `npm ci` in {WEB}"
        for file in files:
            ours, npm = VENDOR_DIR / name / file, NODE_MODULES / name / file
            assert ours.read_bytes() == npm.read_bytes(), (
                f"{ours} differs from {npm}: run `make vendor` (python -m tumble.web.assets)"
            )


def test_copy_vendor_refuses_an_incomplete_source_and_copies_a_complete_one(tmp_path):
    target = tmp_path / "vendor"
    (target / "three").mkdir(parents=True)
    (target / "three" / "stale.js").write_text("old")
    with pytest.raises(FileNotFoundError, match="npm ci"):
        copy_vendor(tmp_path / "empty", target)
    assert (target / "three" / "stale.js").exists()  # nothing removed
    written = copy_vendor(VENDOR_DIR, target)
    assert len(written) == sum(len(files) for files in VENDOR_FILES.values())
    assert missing_vendor(target) == [] and not (target / "three" / "stale.js").exists()
    assert (target / "lil-gui" / "dist" / "lil-gui.esm.js").read_bytes() == (
        VENDOR_DIR / "lil-gui" / "dist" / "lil-gui.esm.js"
    ).read_bytes()
