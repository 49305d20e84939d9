"""The local server of the Poinsot view: a FastAPI app and its uvicorn runner on 127.0.0.1.

Routes:

``GET /``                 the page (``static/index.html``)
``GET /static/...``       the page's script and style
``GET /vendor/three/...``, ``GET /vendor/lil-gui/...``
                          three.js and lil-gui from the ``node_modules`` folder that ``npm ci``
                          fills next to ``package.json`` (nothing is fetched at run time)
``GET /api/health``       ``{"ok": true, "warm": bool}``; ``warm`` once the kernels are compiled
``GET /api/options``      schemes, shapes, axes and the default request
``POST /api/trajectory``  a :class:`tumble.web.scene.TrajectoryRequest` -> the scene JSON

Bad input and failures of a scheme answer HTTP 422 with ``{"error": message}``.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
import threading
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from tumble.status import KernelError
from tumble.web.scene import SHAPES, TrajectoryRequest, scene, scheme_table

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
NODE_MODULES = HERE / "node_modules"
#: the npm packages served under /vendor/<name>/
VENDOR = ("three", "lil-gui")
HOST = "127.0.0.1"


def missing_vendor() -> list[str]:
    """The npm packages that are not installed next to ``package.json``."""
    return [name for name in VENDOR if not (NODE_MODULES / name / "package.json").is_file()]


def _warm_up(state: dict) -> None:
    """Compile the time-stepping kernels once, so that the page's first request is quick."""
    from tumble.freerot import integrate

    try:
        integrate("implicit", (1.0, 2.0, 3.0), (0.1, 1.0, 0.1), dt=0.01, t_end=0.02)
        integrate("exact", (1.0, 2.0, 3.0), (0.1, 1.0, 0.1), dt=0.01, t_end=0.02)
    except Exception as exc:  # the page reports failures per request
        state["warm_error"] = str(exc)
    finally:
        state["warm"] = True


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else err.get("msg", ""))
    return "invalid request: " + "; ".join(parts)


def create_app(warm_up: bool = True) -> FastAPI:
    """The FastAPI application; ``warm_up`` compiles the kernels in a background thread."""
    missing = missing_vendor()
    if missing:
        raise RuntimeError(
            f"the front-end packages {', '.join(missing)} are not installed in {NODE_MODULES}; "
            f"run `npm ci` in {HERE} (or `make setup`)"
        )
    state = {"warm": not warm_up}
    app = FastAPI(title="tumble: Poinsot view", docs_url=None, redoc_url=None)
    app.state.tumble = state
    if warm_up:
        threading.Thread(target=_warm_up, args=(state,), daemon=True).start()

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return _error(422, _validation_message(exc))

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/health")
    def health():
        return {"ok": True, "warm": bool(state.get("warm"))}

    @app.get("/api/options")
    def options():
        return {
            "schemes": scheme_table(),
            "shapes": list(SHAPES),
            "axes": ["minor", "intermediate", "major"],
            "defaults": TrajectoryRequest().model_dump(),
        }

    @app.post("/api/trajectory")
    def trajectory(req: TrajectoryRequest):
        # a plain def: FastAPI runs it in a worker thread, the event loop stays free
        try:
            # JSONResponse directly: the scene is plain lists, no need for jsonable_encoder
            return JSONResponse(scene(req))
        except (ValueError, KernelError, NotImplementedError) as exc:
            return _error(422, f"{req.scheme}: {exc}")
        except FloatingPointError as exc:
            return _error(422, f"{req.scheme}: floating-point failure: {exc}")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for name in VENDOR:
        app.mount(f"/vendor/{name}", StaticFiles(directory=NODE_MODULES / name), name=name)
    return app


def bind(port: int | None) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` None or 0: a free port chosen by the system)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, int(port or 0)))
    except OSError as exc:
        sock.close()
        raise ValueError(
            f"cannot listen on {HOST}:{port}: {exc.strerror}; choose another --port"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(port: int | None = None, log_level: str = "warning") -> None:
    """Run the server on 127.0.0.1 until interrupted; prints the address first."""
    import uvicorn

    app = create_app()
    sock = bind(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/"
    print(f"tumble serve: Poinsot view at {url}  (Ctrl-C to stop)", flush=True)
    config = uvicorn.Config(app, log_level=log_level, lifespan="off")
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
    sock.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tumble.web.server", description="Serve the Poinsot view on 127.0.0.1."
    )
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    args = parser.parse_args(argv)
    try:
        serve(args.port)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
