"""The local server of the Poinsot view: a FastAPI app and its uvicorn runner on 127.0.0.1.

Routes:

``GET /``                 the page (``static/index.html``)
``GET /static/...``       the page's script and style
``GET /vendor/three/...``, ``GET /vendor/lil-gui/...``
                          three.js and lil-gui as the package ships them (``vendor/``, see
                          :mod:`tumble.web.assets`; nothing is fetched at run time)
``GET /api/health``       ``{"ok": true, "warm": bool}``; ``warm`` once the kernels are compiled
``GET /api/options``      schemes, shapes, axes and the default request
``POST /api/trajectory``  a :class:`tumble.web.scene.TrajectoryRequest` -> the scene JSON

Bad input and failures of a scheme answer HTTP 422 with ``{"error": message}``; no input
answers 500 (a non-finite or overflowing number is refused with 422 naming the field).

Guards, in the order a request meets them (:class:`Guard`, a plain ASGI layer in front of the
app):

* **Host header** (against DNS rebinding: a page of another site whose name resolves to
  127.0.0.1 would otherwise be served as if it were ours): only ``127.0.0.1`` and
  ``localhost``, with the served port when it is known; anything else answers 400.
* **Request body** of at most :data:`MAX_BODY` bytes: a larger ``Content-Length`` answers 413
  before a byte of the body is read, and a body sent without one is cut off at the limit (413).
* **Concurrent heavy requests** (``POST /api/trajectory``): at most :data:`MAX_HEAVY` run at
  once; one more answers 429 with ``Retry-After`` at once (no queue). A request runs at most
  :data:`tumble.web.scene.MAX_STEPS` steps, a few seconds, so the latency of an accepted
  request is its own compute time and the wait of a refused one is bounded by it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
import threading
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from tumble.status import KernelError
from tumble.web.assets import VENDOR_DIR, VENDOR_FILES, missing_vendor
from tumble.web.scene import SHAPES, TrajectoryRequest, scene, scheme_table

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
HOST = "127.0.0.1"
#: host names a request may be addressed to (the Host header, without the port)
LOCAL_NAMES = ("127.0.0.1", "localhost")
#: the largest request body, bytes (a trajectory request is a few hundred bytes)
MAX_BODY = 64 * 1024
#: heavy requests (trajectories) running at once; more answer 429
MAX_HEAVY = 2
#: seconds a client refused with 429 is told to wait
RETRY_AFTER = 2
#: the routes that integrate
HEAVY = ("/api/trajectory",)


def host_allowed(host: str | None, port: int | None) -> bool:
    """Whether a Host header names this server: 127.0.0.1 or localhost, with ``port`` when
    given (a missing port is the scheme's default, never a served port here)."""
    if not host:
        return False
    name, sep, given = host.rpartition(":")
    if not sep or "]" in given:
        name, given = host, ""
    if name.lower() not in LOCAL_NAMES:
        return False
    if port is None:
        return given == "" or given.isdigit()
    return given == str(port)


async def _answer(send, status: int, message: str, headers: tuple = ()) -> None:
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI layer: the Host check, the body limit and the cap on heavy requests (module
    docstring). ``port``: the served port (None: any port of 127.0.0.1 or localhost)."""

    def __init__(self, app, port: int | None = None, max_heavy: int = MAX_HEAVY):
        self.app = app
        self.port = port
        self.max_heavy = max_heavy
        self.heavy = threading.BoundedSemaphore(max_heavy) if max_heavy > 0 else None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not host_allowed(headers.get("host"), self.port):
            await _answer(send, 400, f"bad Host header {headers.get('host')!r}: use {HOST}")
            return
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            await _answer(send, 413, f"request body larger than {MAX_BODY} bytes")
            return
        # the body is read here, up to the limit, before the app parses any of it
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > MAX_BODY:
                await _answer(send, 413, f"request body larger than {MAX_BODY} bytes")
                return
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        heavy = scope["path"] in HEAVY
        if heavy and (self.heavy is None or not self.heavy.acquire(blocking=False)):
            await _answer(
                send,
                429,
                f"{self.max_heavy} trajectories are being computed (the most at once); retry "
                f"in {RETRY_AFTER} s",
                ((b"retry-after", str(RETRY_AFTER).encode()),),
            )
            return
        try:
            await self.app(scope, replay, send)
        finally:
            if heavy and self.heavy is not None:
                self.heavy.release()


def mount_vendor(app: FastAPI) -> None:
    """Serve the vendored front-end packages under ``/vendor/<name>/``; FileNotFoundError
    naming the missing files when the package's copy is incomplete (a broken installation)."""
    missing = missing_vendor()
    if missing:
        raise FileNotFoundError(
            f"the package's front-end files {', '.join(missing)} are missing from {VENDOR_DIR}; "
            "reinstall tumble"
        )
    for name in VENDOR_FILES:
        app.mount(f"/vendor/{name}", StaticFiles(directory=VENDOR_DIR / name), name=name)


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


def create_app(warm_up: bool = True):
    """The FastAPI application behind its :class:`Guard` (the guarded ASGI app; the FastAPI
    app is its ``app`` attribute); ``warm_up`` compiles the kernels in a background thread."""
    return Guard(create_fastapi(warm_up))


def create_fastapi(warm_up: bool = True) -> FastAPI:
    """The FastAPI application without the guards."""
    state = {"warm": not warm_up}
    app = FastAPI(title="tumble: Poinsot view", docs_url=None, redoc_url=None)
    app.state.tumble = state
    mount_vendor(app)
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
        except (FloatingPointError, OverflowError, ZeroDivisionError) as exc:
            return _error(422, f"{req.scheme}: floating-point failure: {exc}")
        except MemoryError:
            return _error(422, f"{req.scheme}: the request needs more memory than there is")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
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

    inner = create_fastapi()
    sock = bind(port)
    app = Guard(inner, port=sock.getsockname()[1])
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
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
