"""The wheel works outside the checkout.

Builds the wheel of this checkout (``pip wheel --no-deps --no-build-isolation``: no index
needed), installs it into a fresh virtual environment that sees this interpreter's packages
through a ``.pth`` file (``pip install --no-deps --no-index``) and runs it from a folder outside
the checkout without ``PYTHONPATH``: the package imports from the new environment, ``tumble
validate authume`` finds the field data in the package, and ``tumble serve`` and ``tumble view``
answer their pages and every module the pages load (three.js and lil-gui under ``/vendor/``).
Skipped only when no wheel can be built here (no pip, or no hatchling: ``pip install -e
'.[test]'``). The kernels of the installed sources are compiled once, into a cache of the
test's own: the module takes 1.5-2 min, most of it compiling.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tumble"
#: folders and suffixes of the source tree that are never package data (git-ignored)
NOT_PACKAGED_DIRS = {"__pycache__", "node_modules"}
NOT_PACKAGED_SUFFIXES = {".pyc", ".nbi", ".nbc"}

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("pip") is None, reason="no pip: the wheel cannot be built"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("hatchling") is None,
        reason="no hatchling (the build backend, in the test extra: pip install -e '.[test]'): "
        "the wheel cannot be built without an index",
    ),
]


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


page_modules = _load(ROOT / "tests" / "web" / "page_modules.py", "page_modules")


@dataclass
class Installed:
    wheel: Path
    prefix: Path  # the fresh virtual environment
    bin: Path
    cwd: Path  # a folder outside the checkout
    env: dict[str, str]

    def run(self, *args: str, timeout: float) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [str(self.bin / "tumble"), *args],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert result.returncode == 0, f"tumble {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
        return result


def _check(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    _check(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(dist), str(ROOT)],
        cwd=tmp,
    )
    (wheel,) = dist.glob("tumble-*.whl")

    prefix = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(prefix)
    python = prefix / "bin" / "python"
    site = _check(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    ).stdout.strip()
    # the dependencies (and pip) of this interpreter, after the fresh site-packages on sys.path:
    # its site-packages and any other it sees (never the checkout's src/, which an editable
    # install puts on its path)
    ours = dict.fromkeys(
        [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
        + [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    )
    Path(site, "outer-site-packages.pth").write_text("\n".join(ours) + "\n")

    env = {
        key: value
        for key, value in os.environ.items()
        if key
        not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "TUMBLE_AUTHUME_DATA", "NUMBA_CACHE_DIR")
    }
    env |= {
        "PATH": f"{prefix / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONNOUSERSITE": "1",
        "TUMBLE_CACHE_DIR": str(tmp / "cache"),  # compiled kernels of the installed sources
    }
    cwd = tmp / "work"
    cwd.mkdir()
    _check(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        cwd=cwd,
        env=env,
    )
    return Installed(wheel, prefix, prefix / "bin", cwd, env)


def test_the_wheel_holds_every_file_of_the_package(installed):
    """Every file under src/tumble (modules, pages, the vendored scripts with their licences,
    the Authume data with its README, py.typed) is in the wheel; node_modules is not."""
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    source = {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file()
        and not NOT_PACKAGED_DIRS & set(path.parts)
        and path.suffix not in NOT_PACKAGED_SUFFIXES
    }
    assert source - names == set()
    for required in (
        "tumble/py.typed",
        "tumble/web/vendor/three/build/three.module.js",
        "tumble/web/vendor/three/LICENSE",
        "tumble/web/vendor/lil-gui/dist/lil-gui.esm.js",
        "tumble/web/vendor/lil-gui/LICENSE.md",
        "tumble/web/static/view/index.html",
        "tumble/validation/authume/dataset/README.md",
        "tumble/validation/authume/dataset/Geometries/STL/DTM_Gray_zone.stl",
    ):
        assert required in names, required
    assert not [name for name in names if "node_modules" in name]


def test_the_installed_package_is_imported_from_the_new_environment(installed):
    code = (
        "import tumble, tumble.validation.authume as a, tumble.web.assets as w; "
        "print(tumble.__file__); print(a.data_directory()); print(w.VENDOR_DIR)"
    )
    result = _check(
        [str(installed.bin / "python"), "-c", code], cwd=installed.cwd, env=installed.env
    )
    for line in result.stdout.splitlines():
        assert Path(line).resolve().is_relative_to(installed.prefix.resolve()), line
        assert not Path(line).resolve().is_relative_to(ROOT), line


class Server:
    """A ``tumble serve`` or ``tumble view`` process and the address it printed."""

    def __init__(self, installed: Installed, *args: str):
        self.proc = subprocess.Popen(
            [str(installed.bin / "tumble"), *args, "--port", "0"],
            cwd=installed.cwd,
            env=installed.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.proc.stdout is not None
        printed = []
        while not printed or (printed[-1] and len(printed) < 50):  # until EOF or the address
            printed.append(self.proc.stdout.readline())
            match = re.search(r"http://127\.0\.0\.1:\d+", printed[-1])
            if match:
                self.url = match.group(0)
                return
        self.stop()
        raise AssertionError(f"tumble {args[0]} printed no address: {''.join(printed)}")

    def get(self, path: str) -> tuple[bytes, str]:
        """Body and content type of ``path``; asserts HTTP 200, waiting up to 30 s for the
        server to listen."""
        deadline = time.monotonic() + 30.0
        while True:
            try:
                with urllib.request.urlopen(self.url + path, timeout=30) as response:
                    assert response.status == 200, path
                    return response.read(), response.headers.get("content-type", "")
            except urllib.error.URLError as exc:
                if isinstance(exc, urllib.error.HTTPError):
                    raise AssertionError(f"{path}: HTTP {exc.code}") from None
                assert self.proc.poll() is None, "the server stopped"
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _modules_served(server: Server) -> set[str]:
    """The page and every module it loads, each answered with 200, a body and a JavaScript
    content type; returns the modules' URL paths."""
    page, kind = server.get("/")
    assert page and kind.startswith("text/html")

    def read(url: str) -> str:
        body, kind = server.get(url)
        assert body, url
        assert "javascript" in kind, f"{url}: {kind}"
        return body.decode("utf-8")

    return page_modules.loaded_modules(page.decode("utf-8"), read)


def test_serve_and_view_answer_the_pages_and_their_scripts(installed):
    run_dir = installed.cwd / "run"
    installed.run(
        "rockfall", "run", "--rocks", "4", "--t-max", "5", "--no-figures", "--quiet",
        "--out", str(run_dir), timeout=600,
    )  # fmt: skip
    vendored = {
        "/vendor/three/build/three.module.js",
        "/vendor/three/build/three.core.js",
        "/vendor/three/examples/jsm/controls/OrbitControls.js",
        "/vendor/lil-gui/dist/lil-gui.esm.js",
    }
    for args in (("serve",), ("view", str(run_dir))):
        server = Server(installed, *args)
        try:
            modules = _modules_served(server)
            assert vendored <= modules, (args[0], sorted(modules))
            assert "/static/main.js" in modules
        finally:
            server.stop()


def test_validate_authume_runs_on_the_packaged_data(installed):
    out = installed.cwd / "authume"
    installed.run(
        "validate", "authume", "--rocks-per-profile", "8", "--scheme", "implicit",
        "--out", str(out), timeout=600,
    )  # fmt: skip
    provenance = json.loads((out / "provenance.json").read_text())
    data_dir = Path(provenance["config"]["data_dir"]).resolve()
    assert data_dir.is_relative_to(installed.prefix.resolve()), data_dir
    assert provenance["git"] is None  # an installed package claims no checkout's commit
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics) >= {"p1", "p2"}, list(metrics)
