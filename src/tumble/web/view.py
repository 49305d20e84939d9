"""The 3D view of a finished rockfall run: a FastAPI app over :class:`RunFolder` on 127.0.0.1.

``tumble view RUN_DIR`` (or ``python -m tumble.web.view RUN_DIR``) reads the run folder once
(a folder that is not a finished run with stored trajectories is refused before anything
listens), binds 127.0.0.1, prints the address and serves:

``GET /``                         the page (``static/view/index.html``)
``GET /static/...``               its scripts and style
``GET /vendor/three/...``, ``GET /vendor/lil-gui/...``
                                  three.js and lil-gui as the package ships them (no CDN)
``GET /api/run``                  JSON: rock count, scheme, seed, summary line, warnings, the
                                  terrain grid, raster names, rock hull, trajectory and deposit
                                  layouts, release, barriers with statistics and design values
``GET /api/terrain``              float32 heights of the decimated grid (rows south to north)
``GET /api/raster/{name}``        float32 raster on that grid; its legend in the ``X-Legend``
                                  header (JSON: description, unit, range, scale, colours)
``GET /api/trajectories``         float32 columns ``t, x, y, z, qw, qx, qy, qz,
                                  kinetic_energy_kJ`` of every stored sample, by rock and time
``GET /api/deposits``             float32 columns ``rock, x, y, z, status``
``GET /api/rock/{k}``             JSON: rock k's deposit row, shape, mass, status and, when its
                                  path is stored, its velocity and rotational velocity series

Coordinates are relative to ``origin`` of ``/api/run`` (see :mod:`tumble.web.run_data`). A
request whose ``Host`` is not ``127.0.0.1:PORT`` or ``localhost:PORT`` of this server gets 400
(a page of another site cannot reach the data through DNS rebinding).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

from tumble.web.run_data import MAX_VERTICES, RunFolder
from tumble.web.server import HOST, STATIC, bind, mount_vendor

PAGE = STATIC / "view"
BINARY = "application/octet-stream"


def allowed_hosts(port: int) -> frozenset[str]:
    """The ``Host`` headers this server answers: 127.0.0.1 and localhost with its port (the
    port may be left out only for 80, as browsers do)."""
    names = {f"{HOST}:{port}", f"localhost:{port}"}
    if port == 80:
        names |= {HOST, "localhost"}
    return frozenset(names)


def create_view_app(
    run: RunFolder | str | Path, port: int, max_vertices: int = MAX_VERTICES
) -> FastAPI:
    """The app serving run folder ``run`` on ``port``; reads the folder's metadata now, so that
    a folder it cannot show raises ValueError here."""
    folder = run if isinstance(run, RunFolder) else RunFolder(run, max_vertices)
    meta = folder.meta()
    hosts = allowed_hosts(port)
    app = FastAPI(title=f"tumble: {meta['name']}", docs_url=None, redoc_url=None)
    app.state.run = folder

    @app.middleware("http")
    async def _host_check(request: Request, call_next):
        if request.headers.get("host", "") not in hosts:
            return PlainTextResponse("bad Host header", status_code=400)
        return await call_next(request)

    def binary(data: bytes, headers: dict[str, str] | None = None) -> Response:
        return Response(data, media_type=BINARY, headers=headers)

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(PAGE / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/run")
    def run_meta():
        return JSONResponse(meta)

    @app.get("/api/terrain")
    def terrain():
        return binary(folder.terrain().tobytes())

    @app.get("/api/raster/{name}")
    def raster(name: str):
        try:
            values, legend = folder.overlay(name)
        except KeyError:
            return JSONResponse({"error": f"no raster {name!r} in this run"}, status_code=404)
        return binary(values.tobytes(), {"X-Legend": json.dumps(legend)})

    @app.get("/api/trajectories")
    def trajectories():
        return binary(folder.trajectories())

    @app.get("/api/deposits")
    def deposits():
        return binary(folder.deposits())

    @app.get("/api/rock/{k}")
    def rock(k: int):
        try:
            return JSONResponse(folder.rock(k))
        except KeyError:
            return JSONResponse({"error": f"the run has no rock {k}"}, status_code=404)

    app.mount("/static", StaticFiles(directory=PAGE), name="static")
    mount_vendor(app)
    return app


def serve_view(run_dir: str | Path, port: int | None = None, log_level: str = "warning") -> None:
    """Serve the 3D view of ``run_dir`` on 127.0.0.1 until interrupted; prints the address once
    the folder is read. ValueError when the folder cannot be shown or the port is taken,
    FileNotFoundError when the package's front-end files are missing."""
    import uvicorn

    folder = RunFolder(run_dir)
    sock = bind(port)
    try:
        actual = sock.getsockname()[1]
        app = create_view_app(folder, actual)
        url = f"http://{HOST}:{actual}/"
        print(f"tumble view: {folder.path} at {url}  (Ctrl-C to stop)", flush=True)
        config = uvicorn.Config(app, log_level=log_level, lifespan="off")
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tumble.web.view", description="Serve the 3D view of a run on 127.0.0.1."
    )
    parser.add_argument("run_dir", help="folder written by tumble rockfall run")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    args = parser.parse_args(argv)
    try:
        serve_view(args.run_dir, args.port)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
