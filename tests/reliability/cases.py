"""Bad inputs of the command line, the Python API and the web server, and how each one ends.

Every case names the input and the word its error message must contain (the field, or the
problem). :func:`run_cli`, :func:`run_api` and :func:`run_web` try one case and classify the
outcome:

* ``clear``: refused (exit status 2, a ValueError, an HTTP 4xx) with a message containing the
  word, no traceback, nothing written in the output folder;
* ``unclear``: refused, but the message lacks the word, or something was written;
* ``traceback``: an exception escaped, ``Traceback`` was printed, or HTTP 500;
* ``silent``: accepted (exit 0, no exception, HTTP 2xx): a silent wrong result.

The tests of this folder assert ``clear`` for every case; ``benchmarks/reliability_counts.py``
prints the counts per surface.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: short runs where a case gets that far
FAST = ["--rocks", "2", "--t-max", "1", "--quiet", "--no-figures"]


@dataclass(frozen=True)
class CliCase:
    """``tumble ARGS`` (``{dir}`` is replaced by a scratch folder holding the :data:`FILES`)
    or, with ``toml``, ``tumble rockfall run --config {dir}/run.toml`` of that text."""

    name: str
    args: tuple[str, ...]
    word: str
    toml: str | None = None


#: scratch files the cases refer to, by name: their content (bytes), or None for a folder
FILES: dict[str, bytes | None] = {
    "folder.tif": None,
    "folder": None,
    "text.tif": b"not a raster\n",
    "text.asc": b"ncols 2\nnrows x\n",
    "random.stl": bytes(range(256)) * 3,
    "text.stl": b"hello\n",
    "random.obj": bytes(range(256)) * 5,
    "empty.ply": b"ply\n",
    "points.xyz": b"1 2 x\n",
    "bad.toml": b"rocks = = 3\n",
    "summary/summary.json": b"{not json",
    "other/summary.json": b'{"x": 1}',
    "afile": b"a file\n",
}


def _override(key: str, value: str, word: str | None = None) -> CliCase:
    return CliCase(f"{key}={value}", ("rockfall", "run", f"{key}={value}", *FAST), word or key)


def _toml(name: str, text: str, word: str) -> CliCase:
    return CliCase(name, (), word, toml=text)


CLI_CASES: list[CliCase] = [
    # counts and integers
    _override("rocks", "true"),
    _override("rocks", "1.5"),
    _override("rocks", "0"),
    _override("rocks", "-3"),
    _override("rocks", '"10"'),
    _override("rocks", "1e9"),
    _override("rocks", "1000000000", "limit"),
    _override("rocks", "99999999999999999999999"),
    _override("seed", "-1"),
    _override("seed", "1.5"),
    _override("seed", "true"),
    _override("seed", "100000000000000000000000"),
    _override("run.chunk_size", "0"),
    _override("run.chunk_size", "true"),
    _override("run.threads", "0"),
    _override("run.threads", "100000", "threads"),
    _override("output.trajectories", "-1"),
    _override("output.sample_every", "0"),
    _override("solver.pgs_max_iter", "0"),
    _override("solver.pgs_max_iter", "2.5"),
    _override("solver.newton_max_iter", "true"),
    # numbers: type, sign, overflow
    _override("dt", "1", "dt"),
    _override("dt", "0.5", "dt"),
    _override("dt", "0"),
    _override("dt", "-0.002"),
    _override("dt", '"0.002"'),
    _override("dt", "true"),
    _override("dt", "nan"),
    _override("dt", "inf"),
    _override("dt", "1e400"),
    _override("t_max", "1e20", "t_max"),
    _override("t_max", "0"),
    _override("t_max", "-inf"),
    _override("solver.gravity", "-9.81"),
    _override("solver.gravity", "0"),
    _override("solver.gravity", "true"),
    _override("solver.gravity", '"9.81"'),
    _override("solver.rest_speed", "-1"),
    _override("solver.pgs_tol", "0"),
    _override("release.height", "-1"),
    _override("release.height", "true"),
    _override("release.height", "1e400"),
    _override("release.point", "[1e400, 0]"),
    _override("release.point", "[1]"),
    _override("release.point", '["a", "b"]'),
    _override("release.point", "[true, false]"),
    _override("release.point", "[1e9, 0]", "release"),
    _override("release.velocity", "[0, 0]"),
    _override("release.omega", "[0, 0, nan]"),
    _override("release.orientation", "[1, 0, 0]"),
    _override("release.orientation", "[2, 0, 0, 0]", "orientation"),
    _override("release.speed_downslope", "-1"),
    _override("rock.mass", "-5"),
    _override("rock.mass", '"heavy"'),
    _override("rock.mass", "true"),
    _override("rock.density", "0"),
    _override("rock.shape", "sphere"),
    _override("rock.size", "1e400"),
    _override("soil.mu_min", "-1"),
    _override("soil.mu_min", "true"),
    _override("soil.preset", "mud"),
    _override("soil.restitution", "inf"),
    _override("scheme", "rk4"),
    _override("scheme", "1"),
    _override("scenario", "mars"),
    _override("design.gamma_tr", "-1"),
    _override("output.ascii", "1", "ascii"),
    _override("rock.masss", "5", "rock.masss"),
    _override("solver", "3", "solver"),
    CliCase("bare override", ("rockfall", "run", "rocks", *FAST), "rocks"),
    # files and folders
    CliCase("dem folder", ("rockfall", "run", "--dem", "{dir}/folder.tif", *FAST), "folder"),
    CliCase("dem missing", ("rockfall", "run", "--dem", "{dir}/none.tif", *FAST), "exist"),
    CliCase("dem text", ("rockfall", "run", "--dem", "{dir}/text.tif", *FAST), "text.tif"),
    CliCase("dem ascii", ("rockfall", "run", "--dem", "{dir}/text.asc", *FAST), "text.asc"),
    CliCase("dem suffix", ("rockfall", "run", "--dem", "{dir}/afile", *FAST), "format"),
    CliCase("rock random stl", ("rockfall", "run", "--rock", "{dir}/random.stl", *FAST), "STL"),
    CliCase("rock text stl", ("rockfall", "run", "--rock", "{dir}/text.stl", *FAST), "STL"),
    CliCase("rock random obj", ("rockfall", "run", "--rock", "{dir}/random.obj", *FAST), "OBJ"),
    CliCase("rock empty ply", ("rockfall", "run", "--rock", "{dir}/empty.ply", *FAST), "PLY"),
    CliCase("rock points", ("rockfall", "run", "--rock", "{dir}/points.xyz", *FAST), "line 1"),
    CliCase("rock folder", ("rockfall", "run", "--rock", "{dir}/folder", *FAST), "folder"),
    CliCase("rock missing", ("rockfall", "run", "--rock", "{dir}/none.stl", *FAST), "exist"),
    CliCase("config missing", ("rockfall", "run", "--config", "{dir}/none.toml", *FAST), "exist"),
    CliCase("config malformed", ("rockfall", "run", "--config", "{dir}/bad.toml", *FAST), "bad"),
    CliCase("out empty", ("rockfall", "run", "--out", "", *FAST), "--out"),
    CliCase("out file", ("rockfall", "run", "--out", "{dir}/afile", *FAST), "folder"),
    CliCase("out not a result", ("rockfall", "run", "--out", "{dir}", *FAST), "tumble result"),
    CliCase("release text", ("rockfall", "run", "--release", "a,b", *FAST), "--release"),
    CliCase("release overflow", ("rockfall", "run", "--release", "1e400,0", *FAST), "finite"),
    CliCase("rocks text", ("rockfall", "run", "--rocks", "many"), "--rocks"),
    CliCase("dt negative", ("rockfall", "run", "--dt", "-1"), "--dt"),
    CliCase("compare folder", ("rockfall", "compare", "{dir}/folder", "{dir}/folder"), "no fin"),
    CliCase("compare missing", ("rockfall", "compare", "{dir}/none", "{dir}/folder"), "none"),
    CliCase("compare bad json", ("rockfall", "compare", "{dir}/summary", "{dir}/summary"), "json"),
    CliCase("compare other", ("rockfall", "compare", "{dir}/other", "{dir}/other"), "summary"),
    CliCase("spin scheme", ("spin", "--scheme", "nope"), "scheme"),
    # configuration files
    _toml("toml bool rocks", "rocks = true\n", "rocks"),
    _toml("toml string dt", 'dt = "0.01"\n', "dt"),
    _toml("toml negative gravity", "[solver]\ngravity = -9.81\n", "gravity"),
    _toml("toml overflow", "t_max = 1e400\n", "t_max"),
    _toml("toml table as value", "rocks = {a = 1}\n", "rocks"),
    _toml("toml section as value", 'rock = "eota221"\n', "rock"),
    _toml("toml list of rocks", "rocks = [1, 2]\n", "rocks"),
    _toml("toml barrier no line", '[[barrier]]\nname = "a"\n', "barrier"),
    _toml("toml barrier nan", '[[barrier]]\nname = "a"\nline = [[0, 0], [nan, 1]]\n', "barrier"),
    _toml("toml dem and scenario", 'scenario = "slope40"\ndem = "x.tif"\n', "dem"),
    _toml("toml huge chunk", "rocks = 1000000\n[run]\nchunk_size = 1000000\n", "chunk_size"),
    # release areas and rock classes
    _override("release.areas", '"{dir}/none.gpkg"', "exist"),
    _override("release.raster", '"{dir}/text.tif"', "text.tif"),
    _override("release.frequency_field", '"f"', "release.frequency_field"),
    _toml("toml class shares", '[[rock.classes]]\nname = "a"\nshare = 0.5\nmass = 1.0\n', "shares"),
    _toml("toml class no name", "[[rock.classes]]\nshare = 1.0\n", "name"),
]


@dataclass
class Outcome:
    kind: str  # clear, unclear, traceback, silent
    detail: str = ""
    code: Any = None
    messages: list[str] = field(default_factory=list)


def make_files(root: Path) -> None:
    """Write :data:`FILES` under ``root``."""
    for name, content in FILES.items():
        path = root / name
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)


def _classify(refused: bool, text: str, word: str, written: bool) -> Outcome:
    if "Traceback" in text:
        return Outcome("traceback", text[-500:])
    if not refused:
        return Outcome("silent", text[-500:])
    if word.lower() not in text.lower() or written:
        return Outcome("unclear", ("something was written; " if written else "") + text[-500:])
    return Outcome("clear", text[-300:])


def _snapshot(root: Path) -> set[str]:
    """Every path below ``root`` (but the configuration file a case writes for itself)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")} - {"run.toml"}


def run_cli(case: CliCase, root: Path) -> Outcome:
    """Run one :class:`CliCase` in-process (``tumble.cli.main.main``) in the scratch folder
    ``root`` (made by :func:`make_files`); ``root/out`` is the output folder unless the case
    gives ``--out``."""
    from tumble.cli.main import main

    args = [a.replace("{dir}", str(root)) for a in case.args]
    if case.toml is not None:
        # a short run, should the case be accepted, unless the case sets these keys
        text = "".join(
            line
            for key, line in (("rocks", "rocks = 2\n"), ("t_max", "t_max = 1.0\n"))
            if not case.toml.startswith(key)
        )
        (root / "run.toml").write_text(text + case.toml)
        args = ["rockfall", "run", "--config", str(root / "run.toml"), "--quiet", "--no-figures"]
    out = root / "out"
    if args[:2] == ["rockfall", "run"] and "--out" not in args:
        args += ["--out", str(out)]
    before = _snapshot(root)
    err, std = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std):
            code: Any = main(args)
    except SystemExit as exc:  # argparse errors
        code = exc.code
    except BaseException as exc:
        return Outcome("traceback", f"{type(exc).__name__}: {exc}")
    finally:
        if case.toml is not None:
            (root / "run.toml").unlink()
    written = _snapshot(root) != before
    if out.exists():  # written by an accepted case: removed, so that each case starts afresh
        shutil.rmtree(out)
    text = err.getvalue() + std.getvalue()
    return _classify(code not in (0, None), text, case.word, written)


# ---------------------------------------------------------------------------------------- API


@dataclass(frozen=True)
class ApiCase:
    name: str
    call: Callable[[Path], Any]
    word: str


def _options(**kw: Any) -> Any:
    from tumble.rockfall.step.model import Options

    return Options(**kw)


def _simulate(above: float = 2.0, **kw: Any) -> Any:
    from tumble.rockfall import Rock, Soil, Terrain, simulate

    terrain = Terrain.scenario("slope40")
    position = (10.0, 0.0, float(terrain.height(10.0, 0.0)) + above)
    return simulate(terrain, Rock.eota221(mass=780.0), Soil.preset("medium"), position, **kw)


def _terrain(**kw: Any) -> Any:
    from tumble.rockfall import Terrain

    grid: dict[str, Any] = {"heights": np.zeros((3, 3)), "x0": 0.0, "y0": 0.0, "dx": 1.0, "dy": 1.0}
    grid.update(kw)
    return Terrain(**grid)


def _config(data: dict) -> Any:
    from tumble.io.config import validate

    return validate(data)


def _ensemble(rocks: int, **kw: Any) -> Any:
    from tumble.io.config import load_config
    from tumble.rockfall.site.from_config import build_run

    return build_run(load_config(settings={"rocks": rocks, **kw}))


def _rock_file(name: str) -> Callable[[Path], Any]:
    def call(root: Path) -> Any:
        from tumble.rockfall import Rock

        return Rock.from_file(root / name)

    return call


def _dem_file(name: str) -> Callable[[Path], Any]:
    def call(root: Path) -> Any:
        from tumble.rockfall import Terrain

        return Terrain.from_file(root / name)

    return call


API_CASES: list[ApiCase] = [
    ApiCase("Options dt bool", lambda r: _options(dt=True), "dt"),
    ApiCase("Options dt text", lambda r: _options(dt="0.01"), "dt"),
    ApiCase("Options dt negative", lambda r: _options(dt=-1.0), "dt"),
    ApiCase("Options dt inf", lambda r: _options(dt=math.inf), "dt"),
    ApiCase("Options gravity negative", lambda r: _options(gravity=-9.81), "gravity"),
    ApiCase("Options gravity zero", lambda r: _options(gravity=0.0), "gravity"),
    ApiCase("Options gravity text", lambda r: _options(gravity="9.81"), "gravity"),
    ApiCase("Options t_max nan", lambda r: _options(t_max=math.nan), "t_max"),
    ApiCase("Options pgs_max_iter float", lambda r: _options(pgs_max_iter=2.5), "pgs_max_iter"),
    ApiCase("Options pgs_max_iter bool", lambda r: _options(pgs_max_iter=True), "pgs_max_iter"),
    ApiCase("Options scheme", lambda r: _options(scheme="rk4"), "scheme"),
    ApiCase("Options unknown", lambda r: _options().replace(dtt=1.0), "dtt"),
    ApiCase("simulate dt 1", lambda r: _simulate(dt=1.0), "dt"),
    ApiCase("simulate dt 0.1", lambda r: _simulate(dt=0.1), "dt"),
    ApiCase("simulate t_max 1e20", lambda r: _simulate(t_max=1e20), "t_max"),
    ApiCase("simulate below", lambda r: _simulate(above=-5.0), "below"),
    ApiCase("Terrain duplicate samples", lambda r: _terrain(x0=2.6e6, dx=1e-10), "duplicate"),
    ApiCase("Terrain tiny cells", lambda r: _terrain(dx=1e-200, dy=1e-200), "dx dy"),
    ApiCase("Terrain overflow", lambda r: _terrain(heights=np.eye(3) * 1e300), "overflow"),
    ApiCase("Terrain nan", lambda r: _terrain(heights=np.full((3, 3), np.nan)), "DEM"),
    ApiCase("Terrain dx zero", lambda r: _terrain(dx=0.0), "spacing"),
    ApiCase("Terrain folder", _dem_file("folder.tif"), "folder"),
    ApiCase("Terrain text tif", _dem_file("text.tif"), "text.tif"),
    ApiCase("Rock random stl", _rock_file("random.stl"), "STL"),
    ApiCase("Rock folder", _rock_file("folder"), "folder"),
    ApiCase("Rock empty ply", _rock_file("empty.ply"), "PLY"),
    ApiCase("config rocks bool", lambda r: _config({"rocks": True}), "rocks"),
    ApiCase("config dt text", lambda r: _config({"dt": "0.01"}), "dt"),
    ApiCase("config gravity", lambda r: _config({"solver": {"gravity": -1.0}}), "gravity"),
    ApiCase("config inf", lambda r: _config({"t_max": math.inf}), "t_max"),
    ApiCase("config point bool", lambda r: _config({"release": {"point": [True, 0]}}), "point"),
    ApiCase("ensemble 1e9 rocks", lambda r: _ensemble(10**9), "limit"),
    ApiCase("ensemble t_max 1e20", lambda r: _ensemble(2, t_max=1e20), "t_max"),
    ApiCase("ensemble dt 1", lambda r: _ensemble(2, dt=1.0), "dt"),
]


def run_api(case: ApiCase, root: Path) -> Outcome:
    """Call one :class:`ApiCase`: ValueError with the word is ``clear``."""
    before = _snapshot(root)
    try:
        case.call(root)
    except ValueError as exc:
        return _classify(True, str(exc), case.word, _snapshot(root) != before)
    except BaseException as exc:
        return Outcome("traceback", f"{type(exc).__name__}: {exc}")
    return Outcome("silent", "accepted")


# ---------------------------------------------------------------------------------------- web


@dataclass(frozen=True)
class WebCase:
    """A request to the Poinsot server: ``body`` sent as raw bytes (JSON text or not)."""

    name: str
    path: str
    word: str
    status: int
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    method: str = "POST"


def _json(data: Any) -> bytes:
    return json.dumps(data).encode()


WEB_CASES: list[WebCase] = [
    WebCase("dt overflow", "/api/trajectory", "dt", 422, b'{"dt": 1e400}'),
    WebCase("dt nan", "/api/trajectory", "dt", 422, b'{"dt": NaN}'),
    WebCase("dt negative", "/api/trajectory", "dt", 422, _json({"dt": -0.01})),
    WebCase("dt text", "/api/trajectory", "dt", 422, _json({"dt": "fast"})),
    WebCase("t_end inf", "/api/trajectory", "t_end", 422, b'{"t_end": Infinity}'),
    WebCase("too many steps", "/api/trajectory", "steps", 422, _json({"dt": 1e-9})),
    WebCase("spin overflow", "/api/trajectory", "spin_rate", 422, b'{"spin_rate": -1e999}'),
    WebCase("mass overflow", "/api/trajectory", "mass", 422, b'{"body": {"mass": 1e400}}'),
    WebCase("edges 1e308", "/api/trajectory", "moments", 422, _json({"body": {"a": 1e308}})),
    WebCase("inertia bad", "/api/trajectory", "inertia", 422, _json({"body": {"inertia": [1]}})),
    WebCase("frames huge", "/api/trajectory", "max_frames", 422, _json({"max_frames": 10**30})),
    WebCase("scheme", "/api/trajectory", "scheme", 422, _json({"scheme": "magic"})),
    WebCase("shape", "/api/trajectory", "shape", 422, _json({"body": {"shape": "torus"}})),
    WebCase("unknown key", "/api/trajectory", "extra", 422, _json({"dtt": 0.1})),
    WebCase("not json", "/api/trajectory", "json", 422, b"{dt: 0.1"),
    WebCase("array body", "/api/trajectory", "dictionary", 422, b"[1, 2]"),
    WebCase("body too large", "/api/trajectory", "larger", 413, b" " * 100_000),
    WebCase(
        "length too large",
        "/api/trajectory",
        "larger",
        413,
        b"{}",
        (("content-length", "999999999"),),
    ),
    WebCase("rebinding", "/api/health", "host", 400, None, (("host", "evil.example"),), "GET"),
    WebCase(
        "rebinding port", "/api/health", "host", 400, None, (("host", "127.0.0.1.nip.io"),), "GET"
    ),
    WebCase("no host", "/api/options", "host", 400, None, (("host", ""),), "GET"),
]


def run_web(case: WebCase, client: Any) -> Outcome:
    """Send one :class:`WebCase` through a TestClient of the guarded app."""
    headers = dict(case.headers)
    if case.body is not None:
        headers.setdefault("content-type", "application/json")
    try:
        response = client.request(case.method, case.path, content=case.body, headers=headers)
    except BaseException as exc:
        return Outcome("traceback", f"{type(exc).__name__}: {exc}")
    text = response.text
    if response.status_code >= 500:
        return Outcome("traceback", f"HTTP {response.status_code}: {text[:300]}")
    if response.status_code < 400:
        return Outcome("silent", f"HTTP {response.status_code}")
    outcome = _classify(True, text, case.word, False)
    if response.status_code != case.status:
        outcome = Outcome("unclear", f"HTTP {response.status_code}, expected {case.status}")
    return outcome


def web_client() -> Any:
    from fastapi.testclient import TestClient

    from tumble.web.server import create_app

    return TestClient(create_app(warm_up=False), base_url="http://127.0.0.1")


def scratch() -> tempfile.TemporaryDirectory:
    """A scratch folder (``.name``) holding :data:`FILES`."""
    folder = tempfile.TemporaryDirectory(prefix="tumble-reliability-")
    make_files(Path(folder.name))
    return folder
