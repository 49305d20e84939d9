"""The Poinsot view: the JSON API (TestClient) and the page in Debian's Chromium (Playwright).

The browser tests start the real server (``python -m tumble.web.server``) on a free port of
127.0.0.1 and drive ``/usr/bin/chromium`` (never a downloaded browser) with software WebGL. Without
that browser they are skipped with a message, unless ``TUMBLE_REQUIRE_BROWSER=1``, where they fail.
"""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from tumble.freerot import SCHEMES
from tumble.status import KernelError, Status

#: background of the page's WebGL canvas (#14161a)
BACKGROUND = np.array([20, 22, 26])


# ------------------------------------------------------------------------------------ API


@pytest.fixture(scope="module")
def client():
    from fastapi.testclient import TestClient

    from tumble.web.server import create_app

    # the server answers only requests addressed to 127.0.0.1 or localhost (DNS rebinding)
    with TestClient(create_app(warm_up=False), base_url="http://127.0.0.1") as c:
        yield c


def post(client, **request):
    return client.post("/api/trajectory", json=request)


def test_options_list_every_scheme_and_shape(client):
    response = client.get("/api/options")
    assert response.status_code == 200
    options = response.json()
    assert [s["name"] for s in options["schemes"]] == list(SCHEMES)
    assert {"cuboid", "crossed_rods", "eota221", "moments"} <= set(options["shapes"])
    assert client.get("/api/health").json()["ok"] is True


def test_trajectory_carries_the_poinsot_construction(client):
    response = post(client, scheme="implicit", axis="intermediate", t_end=6.0, max_frames=301)
    assert response.status_code == 200, response.text
    scene = response.json()
    inertia = np.array(scene["inertia"])
    omega = np.array(scene["omega"])
    assert len(scene["t"]) == omega.shape[0] == 301
    k0 = scene["invariants"]["energy"]
    # omega / sqrt(2 K0) on the inertia ellipsoid, its image on the invariable plane
    # (the samples are sent with 12 significant digits)
    r_body = omega / math.sqrt(2.0 * k0)
    assert np.abs(np.sum(inertia * r_body**2, axis=1) - 1.0).max() < 1e-10
    point_lab = np.array(scene["point_lab"])
    normal = np.array(scene["plane_normal"])
    distance = np.array(scene["plane_distance"])
    assert np.abs(np.sum(point_lab * normal[0], axis=1) - distance[0]).max() < 1e-10
    assert max(scene["drift"]["energy"]) < 1e-12 and max(scene["drift"]["spin_norm"]) < 1e-12
    # the flips (tumble.freerot.flips): the period, and the count of the exact motion
    from tumble.freerot.flips import flip_period

    flips = scene["flips"]
    assert abs(flips["period"] / flip_period(inertia, scene["omega0"]) - 1.0) < 1e-12
    assert flips["counted"] == sorted(flips["counted"]) and flips["counted"][0] == 0
    assert flips["counted"] == flips["exact"]
    assert flips["exact"][-1] == 2  # the exact motion flips at 1.507 s and 4.062 s
    assert flips["period"] == pytest.approx(4.062 - 1.507, abs=2e-3)
    # intersection curves of the momentum sphere with the energy ellipsoid
    g0 = scene["invariants"]["spin_norm"]
    for loop in scene["curves"]["current"]:
        loop = np.array(loop)
        assert np.abs(np.linalg.norm(loop, axis=1) / g0 - 1.0).max() < 1e-6


def test_explicit_scheme_near_the_major_axis_drifts(client):
    """Seed 000: the explicit scheme loses |L| near the major axis; the body starts to flip."""
    request = {"scheme": "explicit", "axis": "major", "perturbation": 1e-4, "t_end": 20.0}
    scene = post(client, **request).json()
    assert max(scene["drift"]["energy"]) < 1e-12
    assert max(scene["drift"]["spin_norm"]) > 0.05
    # it flips twice as it crosses from the major to the minor axis, near t = 9 s
    assert scene["flips"]["counted"][-1] == 2
    assert scene["flips"]["period"] is None  # stable in the exact motion: no flips
    assert scene["flips"]["exact"][-1] == 0
    assert scene["flips"]["reason"].startswith("no flips: a stable spin about the major axis")
    implicit = post(client, **{**request, "scheme": "implicit"}).json()
    assert implicit["flips"]["counted"][-1] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"shape": "cuboid", "a": 1.0, "b": 2.0, "c": 3.0},
        {"shape": "ellipsoid"},
        {"shape": "cylinder"},
        {"shape": "crossed_rods", "angle_deg": 60.0, "crossing2": 0.2},
        {"shape": "eota111", "a": 0.5},
        {"shape": "eota221", "a": 0.5},
        {"shape": "moments", "inertia": [1.0, 2.0, 2.5]},
    ],
    ids=lambda b: b["shape"],
)
def test_every_shape_builds_a_scene(client, body):
    scene = post(client, body=body, scheme="implicit", t_end=0.5).json()
    assert "error" not in scene, scene
    drawing = scene["body"]["drawing"]
    assert drawing["kind"] in {"mesh", "ellipsoid", "cylinder", "rods"}
    # the drawn inertia ellipsoid encloses the body
    inertia = np.array(scene["inertia"])
    s = scene["body"]["ellipsoid_scale"]
    if drawing["kind"] == "mesh":
        reach = np.array(drawing["vertices"]) ** 2 @ inertia
        assert reach.max() <= s * s
        assert len(drawing["faces"]) >= 12
    if drawing["kind"] == "rods":
        assert len(drawing["segments"]) == 2


def test_bad_requests_answer_422_with_a_message(client):
    cases = [
        ({"scheme": "verlet"}, "unknown scheme"),
        ({"dt": -0.01}, "dt must be a positive"),
        ({"dt": 1e-5, "t_end": 100.0}, "steps is more than"),
        ({"body": {"shape": "moments", "inertia": [1.0, 1.0, 5.0]}}, "triangle inequality"),
        ({"axis": "sideways"}, "invalid request: axis"),
        ({"body": {"shape": "cuboid", "a": -1.0}}, "positive"),
        ({"colour": "red"}, "invalid request"),
    ]
    for request, message in cases:
        response = post(client, **request)
        assert response.status_code == 422, request
        assert message in response.json()["error"], response.json()


@pytest.mark.parametrize(
    "error",
    [KernelError(Status.NO_SOLUTION, "quat_em at step 3"), NotImplementedError("not yet")],
    ids=["kernel", "not-implemented"],
)
def test_scheme_failures_answer_422(client, monkeypatch, error):
    import tumble.web.scene as scene_module

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(scene_module, "integrate", fail)
    response = post(client, scheme="quat_em")
    assert response.status_code == 422
    assert str(error) in response.json()["error"]


def test_host_header_must_name_the_served_address():
    """DNS rebinding: only 127.0.0.1 or localhost with the served port (host_allowed)."""
    from tumble.web.server import host_allowed

    assert host_allowed("127.0.0.1:8123", 8123) and host_allowed("LOCALHOST:8123", 8123)
    for host in ("127.0.0.1:8124", "127.0.0.1", "evil.example:8123", "127.0.0.1.nip.io:8123", ""):
        assert not host_allowed(host, 8123), host
    assert host_allowed("127.0.0.1", None) and not host_allowed("evil.example", None)


def test_body_limit_answers_413_before_the_app_reads_it(client):
    from tumble.web.server import MAX_BODY

    at_limit = b"{" + b" " * (MAX_BODY - 2) + b"}"
    json_type = {"content-type": "application/json"}
    assert client.post("/api/trajectory", content=at_limit, headers=json_type).status_code == 200
    response = client.post("/api/trajectory", content=at_limit + b" ", headers=json_type)
    assert response.status_code == 413 and str(MAX_BODY) in response.json()["error"]


def test_concurrent_trajectories_beyond_the_cap_answer_429():
    """With the cap taken by running requests one more is refused at once with Retry-After, and
    accepted again once one of them ends."""
    from fastapi.testclient import TestClient

    from tumble.web.server import RETRY_AFTER, Guard, create_fastapi

    guard = Guard(create_fastapi(warm_up=False), max_heavy=2)
    with TestClient(guard, base_url="http://127.0.0.1") as c:
        assert guard.heavy.acquire(blocking=False) and guard.heavy.acquire(blocking=False)
        response = post(c)
        assert response.status_code == 429
        assert response.headers["retry-after"] == str(RETRY_AFTER)
        assert c.get("/api/health").status_code == 200  # light requests are not capped
        guard.heavy.release()
        assert post(c, t_end=1.0).status_code == 200
        guard.heavy.release()


def test_front_end_is_served_locally(client):
    page = client.get("/")
    assert page.status_code == 200
    for path in (
        "/static/main.js",
        "/static/style.css",
        "/vendor/three/build/three.module.js",
        "/vendor/three/build/three.core.js",
        "/vendor/three/examples/jsm/controls/OrbitControls.js",
        "/vendor/lil-gui/dist/lil-gui.esm.js",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert len(response.content) > 1000, path
    # nothing on the page points off this machine
    for text in (page.text, client.get("/static/main.js").text):
        assert not re.search(r"https?://|//cdn|unpkg|jsdelivr", text)


# -------------------------------------------------------------------------------- browser


@pytest.fixture(scope="module")
def server_url():
    """The real server in a subprocess on a free port; waits until its kernels are compiled."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tumble.web.server", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, f"the server did not print its address: {line!r}"
        url = match.group(0)
        deadline = time.monotonic() + 300.0
        while True:
            assert proc.poll() is None, "the server stopped"
            try:
                with urllib.request.urlopen(url + "api/health", timeout=5) as r:
                    if b'"warm":true' in r.read():
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not compile its kernels in time"
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def open_page(watch, page, url):
    page.goto(url)
    wait_loaded(page, 1)
    return watch


def wait_loaded(page, generation: int) -> None:
    page.wait_for_function(
        f"window.tumble && window.tumble.generation >= {generation} && !window.tumble.loading",
        timeout=60_000,
    )
    settle(page)


def settle(page) -> None:
    """Let the page draw two more animation frames."""
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def pixels(page, selector: str) -> np.ndarray:
    from PIL import Image

    png = page.locator(selector).screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def hold_at(page, t: float) -> None:
    page.evaluate(f"window.tumble.params.playing = false; window.tumble.params.time = {t}")
    settle(page)


def readout(page, slot: int, field: str) -> str:
    return page.locator(f'[data-readout="{slot}"] dd[data-field="{field}"]').inner_text()


def test_page_draws_the_scene_and_stays_local(page_watch, page, server_url):
    watch = open_page(page_watch, page, server_url)
    assert page.evaluate("document.body.dataset.state") == "ready"
    # WebGL works and the lab view shows the scene: many colours, far from a blank background
    assert page.evaluate("!!document.getElementById('scene').getContext('webgl2')")
    lab = pixels(page, '[data-view="lab-0"]')
    drawn = np.abs(lab - BACKGROUND).sum(axis=-1) > 30
    assert drawn.mean() > 0.05
    assert len(np.unique(lab.reshape(-1, 3), axis=0)) > 100
    body = pixels(page, '[data-view="body-0"]')
    assert (np.abs(body - BACKGROUND).sum(axis=-1) > 30).mean() > 0.05
    # the read-outs follow the playback
    first = readout(page, 0, "time")
    page.wait_for_timeout(700)
    assert readout(page, 0, "time") != first
    assert readout(page, 0, "scheme") == "implicit"
    # the relative energy error now and its largest so far, as the page formats them
    # (toExponential: exactly 0 reads "0.00e+0"): the implicit scheme keeps the energy to
    # round-off
    energy = re.fullmatch(
        r"(\d\.\d\de[-+]\d+)\s+\(max (\d\.\d\de[-+]\d+)\)", readout(page, 0, "energy")
    )
    assert energy is not None
    assert float(energy.group(1)) <= float(energy.group(2)) < 1e-12
    assert readout(page, 0, "period") == "2.555 s"
    hold_at(page, 19.0)
    # the exact motion flips at 1.507 s and every 2.555 s after: 7 flips by t = 19 s
    assert readout(page, 0, "flips") == readout(page, 0, "exact") == "7"
    assert watch.console_errors == [] and watch.page_errors == []
    assert watch.external == []


def test_scheme_and_axis_change_what_is_drawn(page_watch, page, server_url):
    watch = open_page(page_watch, page, server_url)
    hold_at(page, 15.0)
    before = pixels(page, '[data-view="lab-0"]')
    energy_before = readout(page, 0, "energy")

    page.select_option('[data-control="scheme"] select', "explicit")
    wait_loaded(page, 2)
    hold_at(page, 15.0)
    explicit = pixels(page, '[data-view="lab-0"]')
    assert readout(page, 0, "scheme") == "explicit"
    assert float(readout(page, 0, "spin").split()[0]) > 1e-6  # |L| drifts
    assert readout(page, 0, "energy") != energy_before
    changed = np.abs(explicit - before).sum(axis=-1) > 30
    assert changed.mean() > 0.005

    page.select_option('[data-control="axis"] select', "major")
    wait_loaded(page, 3)
    hold_at(page, 15.0)
    major = pixels(page, '[data-view="lab-0"]')
    assert (np.abs(major - explicit).sum(axis=-1) > 30).mean() > 0.005
    assert readout(page, 0, "period") == "none"
    assert "a stable spin about the major axis" in page.locator("#flip-note").inner_text()
    assert watch.console_errors == [] and watch.page_errors == []
    assert watch.external == []


def test_comparison_mode_and_errors_on_the_page(page_watch, page, server_url):
    watch = open_page(page_watch, page, server_url)
    page.locator('[data-control="compare"] input').check()
    wait_loaded(page, 2)
    hold_at(page, 10.0)
    assert page.locator('[data-slot="1"]').is_visible()
    assert readout(page, 1, "scheme") == "explicit"
    # synchronised: both views show the same sample, the last one at or before t = 10 s
    shown = readout(page, 0, "time")
    assert readout(page, 1, "time") == shown
    assert 9.9 <= float(shown.split()[0]) <= 10.0
    second = pixels(page, '[data-view="lab-1"]')
    assert (np.abs(second - BACKGROUND).sum(axis=-1) > 30).mean() > 0.05

    # an impossible body: the server answers 422 and the page shows why, without crashing
    page.select_option('[data-control="shape"] select', label="custom moments")
    wait_loaded(page, 3)
    field = page.locator('[data-control="C"] input')
    field.fill("5")
    field.press("Enter")
    wait_loaded(page, 4)
    error = page.locator('[data-slot="0"] .error')
    assert error.is_visible()
    assert "triangle inequality" in error.inner_text()
    assert page.evaluate("document.body.dataset.state") == "error"
    assert watch.page_errors == []
    # the only console errors are the browser's own notes of the two 422 answers
    assert all("422" in message for message in watch.console_errors), watch.console_errors
    assert watch.external == []


def assert_readout_fits(page, slot: int, width: int, height: int) -> None:
    """The read-out panel lies inside the window and shows all its text without scrolling."""
    panel = page.locator(f'[data-readout="{slot}"]')
    box = panel.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["y"] >= 0
    assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, box
    sizes = panel.evaluate("e => [e.scrollWidth, e.clientWidth, e.scrollHeight, e.clientHeight]")
    scroll_width, client_width, scroll_height, client_height = sizes
    assert scroll_width <= client_width and scroll_height <= client_height, sizes
    # no value cut: every row lies inside the panel
    for field in panel.locator("dt, dd").all():
        inner = field.bounding_box()
        assert inner is not None
        assert inner["x"] + inner["width"] <= box["x"] + box["width"] + 0.5, inner
        assert inner["y"] + inner["height"] <= box["y"] + box["height"] + 0.5, inner
    # and the page itself has no scrollbar
    assert page.evaluate(
        "document.documentElement.scrollHeight <= window.innerHeight"
        " && document.documentElement.scrollWidth <= window.innerWidth"
    )


def test_readout_fits_a_1400_by_900_window(page_watch, page, server_url, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 900})
    watch = open_page(page_watch, page, server_url)
    hold_at(page, 19.0)  # a long run: several flips counted
    page.screenshot(path=str(tmp_path / "readout-single.png"))
    assert_readout_fits(page, 0, 1400, 900)
    # two schemes side by side: each read-out gets half the width (rows wrap)
    page.locator('[data-control="compare"] input').check()
    wait_loaded(page, 2)
    page.select_option('[data-control="shape"] select', label="custom moments")
    wait_loaded(page, 3)
    hold_at(page, 19.0)
    page.screenshot(path=str(tmp_path / "readout-compare.png"))
    for slot in (0, 1):
        assert_readout_fits(page, slot, 1400, 900)
    assert watch.console_errors == [] and watch.page_errors == []
    assert watch.external == []


def legend_and_drawing(page, slot: int) -> dict:
    """For each view of a slot: the legend's entries (key, swatch colours, greyed out) and the
    legend keys of what the view draws, with the colours of their materials."""
    return page.evaluate(
        """(slot) => {
          const app = window.tumble;
          const s = app.slots[slot];
          const out = {};
          for (const kind of ["lab", "body"]) {
            const entries = [...s.legends[kind].children].map((li) => ({
              key: li.dataset.item,
              text: li.textContent,
              off: li.classList.contains("off"),
              shown: li.getBoundingClientRect().height > 0,
              colors: [...li.querySelectorAll("i")].map((i) => i.style.getPropertyValue("--c")),
            }));
            const colors = {};
            s[kind].content.traverseVisible((o) => {
              if (!(o.isMesh || o.isLine || o.isPoints)) return;
              let owner = o;
              while (owner && !owner.userData.legend) owner = owner.parent;
              const key = owner ? owner.userData.legend : "(none)";
              const materials = Array.isArray(o.material) ? o.material : [o.material];
              colors[key] = colors[key] || [];
              for (const m of materials) {
                if (m && m.color) colors[key].push("#" + m.color.getHexString());
              }
            });
            out[kind] = { entries, drawn: [...app.drawnKeys(s[kind])], colors };
          }
          return out;
        }""",
        slot,
    )


def assert_every_drawn_item_has_its_entry(views) -> None:
    for kind, view in views.items():
        keys = [entry["key"] for entry in view["entries"]]
        assert len(keys) == len(set(keys)), kind
        assert None not in view["drawn"] and "(none)" not in view["colors"], kind
        # everything drawn has an entry, every entry not greyed out is drawn
        assert set(view["drawn"]) <= set(keys), (kind, view["drawn"], keys)
        assert {e["key"] for e in view["entries"] if not e["off"]} == set(view["drawn"]), kind
        for entry in view["entries"]:
            assert entry["shown"] and entry["text"].strip(), entry
            if entry["key"] in view["colors"]:
                # the swatches show the colours the item is drawn in
                assert set(entry["colors"]) & set(view["colors"][entry["key"]]), entry


def test_every_drawn_item_of_both_views_has_a_legend_entry(page_watch, page, server_url):
    """Lab and body view of both slots: each object drawn carries the key of an entry of its
    view's legend, whose swatch has the object's colour; hiding an item greys its entry out.
    The herpolhode and the energy ellipsoid no longer share a colour."""
    watch = open_page(page_watch, page, server_url)
    page.locator('[data-control="compare"] input').check()
    wait_loaded(page, 2)
    for slot in (0, 1):
        views = legend_and_drawing(page, slot)
        assert_every_drawn_item_has_its_entry(views)
        assert set(views["lab"]["drawn"]) == {
            "body",
            "axes",
            "ellipsoid",
            "polhode",
            "plane",
            "herpolhode",
            "contact",
            "spin",
            "omega",
        }
        assert set(views["body"]["drawn"]) == {
            "axes",
            "sphere",
            "energy",
            "current",
            "family",
            "trail",
        }
        lab_colors = {e["key"]: e["colors"] for e in views["lab"]["entries"]}
        body_colors = {e["key"]: e["colors"] for e in views["body"]["entries"]}
        assert not set(lab_colors["herpolhode"]) & set(body_colors["energy"])
    page.evaluate(
        "window.tumble.params.show.energy = false; window.tumble.params.show.plane = false;"
        " window.tumble.slots.forEach((s) => s.applyVisibility())"
    )
    settle(page)
    views = legend_and_drawing(page, 0)
    assert_every_drawn_item_has_its_entry(views)
    off = {e["key"] for kind in views for e in views[kind]["entries"] if e["off"]}
    assert off == {"energy", "plane"}
    assert watch.console_errors == [] and watch.page_errors == []
    assert watch.external == []


def test_the_page_explains_its_quantities(page_watch, page, server_url):
    """The perturbation's unit, that the drifts are relative, and that the flip period is half
    a cycle, on the page and in the read-out labels."""
    watch = open_page(page_watch, page, server_url)
    help_text = page.locator("#help").inner_text()
    assert "fraction of the spin rate" in help_text
    assert "relative to the initial values" in help_text
    assert "half the period" in help_text
    assert "flips every half cycle" in page.locator("#flip-note").inner_text()
    control = page.locator('[data-control="perturbation"]')
    assert "× rate" in control.inner_text()
    assert "fraction of the spin rate" in control.get_attribute("title")
    labels = page.locator('[data-readout="0"] dt').all_inner_texts()
    assert "energy drift |E−E₀|/E₀" in labels
    assert "|L| drift ||L|−|L₀||/|L₀|" in labels
    assert "flip period (half a cycle)" in labels
    assert watch.console_errors == [] and watch.page_errors == []
