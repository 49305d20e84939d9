"""The 3D view of a run: its data endpoints against the run folder's files (FastAPI TestClient),
the Host check, the command's errors, and the page in Debian's Chromium (Playwright).

One small run on a national grid (x ~ 2.6e6 m, so the origin shift matters) with an inline net
and a barrier read from a GeoJSON file is made once for the module.
"""

from __future__ import annotations

import io
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import rasterio

from tumble.cli.main import main

CRS = "EPSG:2056"
X0, Y0 = 2600000.0, 1200000.0
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
N_ROCKS, STORED = 6, 4
#: page background (#14161a)
BACKGROUND = np.array([20, 22, 26])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from tumble.rockfall import Terrain

    folder = tmp_path_factory.mktemp("view")
    x = np.arange(81.0)
    z = np.maximum(50.0 - x, 0.0) * math.tan(math.radians(35.0)) + 400.0
    terrain = Terrain.from_array(np.broadcast_to(z, (41, 81)), x0=X0, y0=Y0, dx=1.0, crs=CRS)
    terrain.write(folder / "slope.tif")
    line = [[X0 + 30.0, Y0 + 2.0], [X0 + 30.0, Y0 + 38.0]]
    (folder / "run.toml").write_text(
        f'dem = "slope.tif"\nrocks = {N_ROCKS}\nt_max = 6.0\n\n[release]\n'
        f"line = [[{X0 + 3.0}, {Y0 + 17.0}], [{X0 + 3.0}, {Y0 + 23.0}]]\n\n"
        f"[output]\ntrajectories = {STORED}\n\n"
        f'[[barrier]]\nname = "fence A"\nline = {line}\nheight = 4.0\ncapacity = 2000.0\n'
    )
    feature = {
        "type": "Feature",
        "properties": {"name": "observation B"},
        "geometry": {
            "type": "LineString",
            "coordinates": [[X0 + 60.0, Y0 + 2.0], [X0 + 60.0, Y0 + 38.0]],
        },
    }
    crs = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2056"}}
    (folder / "lines.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "crs": crs, "features": [feature]})
    )
    out = folder / "run"
    argv = ["rockfall", "run", "--config", str(folder / "run.toml")]
    argv += ["--barriers", str(folder / "lines.geojson"), "--no-figures", "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def client(run_dir):
    from fastapi.testclient import TestClient

    from tumble.web.view import create_view_app

    with TestClient(create_view_app(run_dir, PORT), base_url=BASE) as c:
        yield c


@pytest.fixture(scope="module")
def meta(client):
    return client.get("/api/run").json()


def summary(run_dir) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def floats(response, columns: int) -> np.ndarray:
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/octet-stream"
    return np.frombuffer(response.content, dtype=np.float32).reshape(columns, -1)


def read_tif(path: Path) -> tuple[np.ndarray, str, str]:
    """Values (rows south to north, NaN nodata), band description and unit."""
    with rasterio.open(path) as data:
        values = data.read(1, masked=True).astype(np.float64).filled(np.nan)[::-1]
        return values, data.descriptions[0], data.units[0]


# ------------------------------------------------------------------------------------ API


def test_run_record_matches_the_summary(run_dir, meta):
    from tumble.rockfall.ensemble import summary_line

    s = summary(run_dir)
    assert (meta["n_rocks"], meta["scheme"], meta["seed"]) == (N_ROCKS, s["scheme"], s["seed"])
    assert meta["summary_line"] == summary_line(s)
    assert meta["warnings"] == s["warnings"]
    tifs = sorted(p.stem for p in (run_dir / "rasters").glob("*.tif") if p.stem != "dem")
    assert meta["rasters"] == tifs and "reach_probability" in tifs
    # the kept rocks: rock 0 and a sample of the others, not the first STORED rocks
    assert meta["trajectories"]["rocks"] == s["trajectories"]["rocks"]
    assert len(s["trajectories"]["rocks"]) == STORED and s["trajectories"]["rocks"][0] == 0
    assert s["trajectories"]["rocks"] != list(range(STORED))
    assert "2056" in meta["crs"]


def test_terrain_is_the_dem_relative_to_the_origin(run_dir, client, meta):
    dem, _, unit = read_tif(run_dir / "rasters" / "dem.tif")
    grid = meta["terrain"]
    assert (grid["ny"], grid["nx"], grid["stride"]) == (*dem.shape, 1)
    ox, oy, oz = meta["origin"]
    assert oz == np.nanmin(dem)
    heights = floats(client.get("/api/terrain"), 1).reshape(dem.shape)
    np.testing.assert_allclose(heights + oz, dem, rtol=0, atol=1e-4)
    # the first sample is the DEM's south-west pixel centre
    assert grid["x0"] + ox == X0 and grid["y0"] + oy == Y0
    assert unit == "m"


def test_every_raster_is_served_with_its_legend(run_dir, client, meta):
    for name in meta["rasters"]:
        response = client.get(f"/api/raster/{name}")
        values = floats(response, 1).reshape(meta["terrain"]["ny"], meta["terrain"]["nx"])
        expected, description, unit = read_tif(run_dir / "rasters" / f"{name}.tif")
        assert np.array_equal(np.isnan(values), np.isnan(expected)), name
        np.testing.assert_allclose(values, expected.astype(np.float32), rtol=0, equal_nan=True)
        legend = json.loads(response.headers["X-Legend"])
        assert (legend["description"], legend["unit"]) == (description, unit)
        shown = expected[np.isfinite(expected)]
        if legend["zero_is_empty"]:
            shown = shown[shown > 0]
        if shown.size:
            assert math.isclose(legend["max"], shown.max(), rel_tol=1e-6)
        assert len(legend["colors"]) == 6 * 256
    assert client.get("/api/raster/dem").status_code == 404
    assert client.get("/api/raster/nothing").status_code == 404


def test_trajectories_are_the_stored_samples(run_dir, client, meta):
    layout = meta["trajectories"]
    data = floats(client.get("/api/trajectories"), len(layout["columns"]))
    table = pq.read_table(run_dir / "trajectories.parquet")
    ox, oy, oz = meta["origin"]
    shift = {"x": ox, "y": oy, "z": oz}
    offsets = layout["offsets"]
    assert data.shape[1] == layout["n"] == table.num_rows == offsets[-1]
    for r, rock in enumerate(layout["rocks"]):
        rows = table.filter(table.column("rock").to_numpy() == rock)
        order = np.argsort(rows.column("t").to_numpy(), kind="stable")
        served = data[:, offsets[r] : offsets[r + 1]]
        for k, name in enumerate(layout["columns"]):
            source = "kinetic_energy_J" if name == "kinetic_energy_kJ" else name
            expected = rows.column(source).to_numpy()[order]
            expected = expected * 1e-3 if source == "kinetic_energy_J" else expected
            value = served[k].astype(np.float64) + shift.get(name, 0.0)
            # float32 of coordinates relative to the origin: better than 0.1 mm here
            np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-4, err_msg=name)
    assert math.isclose(layout["energy_max_kJ"], data[-1].max(), rel_tol=1e-7)


def test_deposits_are_the_final_points(run_dir, client, meta):
    import csv

    with (run_dir / "deposits.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    data = floats(client.get("/api/deposits"), 5)
    statuses = meta["deposits"]["statuses"]
    ox, oy, oz = meta["origin"]
    assert data.shape[1] == len(rows) == N_ROCKS
    for k, row in enumerate(rows):
        assert int(data[0, k]) == int(row["rock"])
        position = data[1:4, k].astype(np.float64) + (ox, oy, oz)
        expected = [float(row[c]) for c in "xyz"]
        np.testing.assert_allclose(position, expected, rtol=0, atol=1e-4)
        assert statuses[int(data[4, k])] == row["status"]


def test_barriers_carry_their_line_statistics_and_design_values(run_dir, meta):
    s = summary(run_dir)
    ox, oy, _ = meta["origin"]
    [net, line] = meta["barriers"]
    assert net["name"] == "fence A" and net["kind"] == "net" and net["height_m"] == 4.0
    assert line["name"] == "observation B" and line["kind"] == "line"
    np.testing.assert_allclose(
        np.array(net["line"]) + (ox, oy), [[X0 + 30, Y0 + 2], [X0 + 30, Y0 + 38]]
    )
    # read back from the GeoJSON file
    np.testing.assert_allclose(
        np.array(line["line"]) + (ox, oy), [[X0 + 60, Y0 + 2], [X0 + 60, Y0 + 38]]
    )
    assert [b["statistics"] for b in meta["barriers"]] == s["barriers"]
    assert net["statistics"]["design"]["standard"] == "UNI 11211-4"


def test_release_is_the_configured_line_and_the_rocks_points(run_dir, meta):
    import csv

    ox, oy, oz = meta["origin"]
    release = meta["release"]
    assert release["kind"] == "line"
    np.testing.assert_allclose(
        np.array(release["coordinates"]) + (ox, oy), [[X0 + 3, Y0 + 17], [X0 + 3, Y0 + 23]]
    )
    with (run_dir / "deposits.csv").open(newline="") as f:
        points = {tuple(float(r[f"release_{c}"]) for c in "xyz") for r in csv.DictReader(f)}
    served = np.array(release["points"]) + (ox, oy, oz)
    np.testing.assert_allclose(served, sorted(points), rtol=0, atol=1e-6)


def test_rock_hull_has_the_runs_mass_and_principal_moments(run_dir, meta):
    """The hull served, filled with the run's density, has the resolved principal moments
    about its own axes: the body frame the quaternions refer to."""
    from tumble.bodies.polyhedron import ConvexPolyhedron

    resolved = json.loads((run_dir / "provenance.json").read_text())["config"]["resolved"]
    rock = meta["rock"]
    hull = ConvexPolyhedron.from_points(np.array(rock["vertices"]), mass=rock["mass_kg"])
    assert rock["mass_kg"] == resolved["rock"]["mass"]
    # the inertia tensor in the frame the vertices are given in is diagonal with the moments
    inertia = np.diag(resolved["rock"]["inertia_kg_m2"])
    np.testing.assert_allclose(hull.inertia_tensor, inertia, rtol=0, atol=1e-9 * inertia.max())
    np.testing.assert_allclose(hull.centroid, 0.0, atol=1e-12)
    assert len(rock["faces"]) == len(hull.faces)
    assert rock["source"] == "rock 0 of the run"


def test_the_stored_hull_needs_no_input_file(run_dir, tmp_path):
    """The view draws the hull the run stored (geometry.json): the configuration's rock file
    may be gone, nothing is compiled again."""
    from tumble.web.run_data import RunFolder

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    record = json.loads((copy / "provenance.json").read_text())
    record["config"]["physics"]["rock"] = {"shape": "file", "file": str(tmp_path / "gone.stl")}
    (copy / "provenance.json").write_text(json.dumps(record))
    assert RunFolder(copy).shape == RunFolder(run_dir).shape


def test_a_run_without_stored_geometry_is_drawn_as_the_box_of_its_moments(run_dir, tmp_path):
    """Edges a_i from A_i = m (a_j^2 + a_k^2) / 12: the box has the run's mass and moments."""
    from tumble.bodies.polyhedron import ConvexPolyhedron
    from tumble.web.run_data import RunFolder

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    (copy / "geometry.json").unlink()
    record = json.loads((copy / "provenance.json").read_text())
    shape = RunFolder(copy).shape
    assert "box" in shape["source"] and len(shape["vertices"]) == 8
    resolved = record["config"]["resolved"]["rock"]
    hull = ConvexPolyhedron.from_points(np.array(shape["vertices"]), mass=resolved["mass"])
    np.testing.assert_allclose(np.diag(hull.inertia_tensor), resolved["inertia_kg_m2"], rtol=1e-9)


def test_rock_record_has_its_velocities_about_the_principal_axes(run_dir, client):
    kept = summary(run_dir)["trajectories"]["rocks"]
    rock = kept[-1]
    table = pq.read_table(run_dir / "trajectories.parquet")
    rows = table.filter(table.column("rock").to_numpy() == rock)
    order = np.argsort(rows.column("t").to_numpy(), kind="stable")
    column = {n: rows.column(n).to_numpy()[order] for n in rows.column_names}
    record = client.get(f"/api/rock/{rock}").json()
    path = record["path"]
    speed = np.sqrt(column["vx"] ** 2 + column["vy"] ** 2 + column["vz"] ** 2)
    np.testing.assert_allclose(path["speed_ms"], speed, rtol=1e-12)
    for axis in "xyz":
        np.testing.assert_allclose(path[f"omega_{axis}"], column[f"omega_{axis}"], rtol=0)
    step = np.hypot(np.diff(column["x"]), np.diff(column["y"]))
    np.testing.assert_allclose(path["distance_m"][-1], step.sum(), rtol=1e-12)
    assert record["shape"] == "EOTA221" and record["mass_kg"] == 780.0
    assert record["status"] in {"stopped", "left_domain", "timed_out", "caught", "failed"}
    # a rock whose path is not stored has its facts only; no rock 99
    [other, *_] = sorted(set(range(N_ROCKS)) - set(kept))
    assert client.get(f"/api/rock/{other}").json()["path"] is None
    assert client.get("/api/rock/99").status_code == 404


def test_only_this_servers_host_names_are_answered(run_dir):
    from fastapi.testclient import TestClient

    from tumble.web.view import create_view_app

    app = create_view_app(run_dir, PORT)
    for host, status in [
        (f"127.0.0.1:{PORT}", 200),
        (f"localhost:{PORT}", 200),
        ("127.0.0.1:1", 400),
        (f"evil.example:{PORT}", 400),
        ("evil.example", 400),
    ]:
        with TestClient(app, base_url=f"http://{host}") as c:
            assert c.get("/api/run").status_code == status, host
            assert c.get("/").status_code == status, host


def test_front_end_is_served_locally(client):
    page = client.get("/")
    assert page.status_code == 200
    scripts = ["main.js", "layers.js", "panels.js", "plots.js", "colors.js"]
    for path in [*(f"/static/{s}" for s in scripts), "/static/view.css"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert not re.search(r"https?://|//cdn|unpkg|jsdelivr", response.text), path
    assert client.get("/vendor/three/build/three.module.js").status_code == 200
    assert not re.search(r"https?://(?!www\.w3\.org)", page.text)


# --------------------------------------------------------------------------- decimation


def test_block_max_is_the_maximum_around_each_vertex():
    from tumble.web.run_data import block_max, decimation_stride

    rng = np.random.default_rng(3)
    values = rng.normal(size=(23, 37))
    values[rng.random(values.shape) < 0.3] = np.nan
    values[:6, :6] = np.nan
    for stride in (1, 2, 3, 5):
        out = block_max(values, stride)
        assert out.shape == ((23 - 1) // stride + 1, (37 - 1) // stride + 1)
        half = stride // 2
        for j in range(out.shape[0]):
            for i in range(out.shape[1]):
                r0, c0 = max(j * stride - half, 0), max(i * stride - half, 0)
                window = values[r0 : j * stride - half + stride, c0 : i * stride - half + stride]
                if np.isnan(window).all():
                    assert np.isnan(out[j, i])
                else:
                    assert out[j, i] == np.nanmax(window)
    assert decimation_stride((3163, 3163), 250_000) == 7  # 452 x 452 = 204 304 vertices
    assert decimation_stride((10, 10), 100) == 1 and decimation_stride((10, 10), 99) == 2


def test_large_dems_are_decimated_to_every_stride_th_sample(run_dir):
    from tumble.web.run_data import RunFolder

    folder = RunFolder(run_dir, max_vertices=500)
    dem, _, _ = read_tif(run_dir / "rasters" / "dem.tif")
    s = folder.stride
    assert s == 3  # 14 x 27 = 378 vertices; stride 2 would give 21 x 41 = 861
    grid = folder.terrain_grid()
    np.testing.assert_allclose(folder.terrain() + folder.origin[2], dem[::s, ::s], atol=1e-4)
    assert grid["dx"] == 3.0 and (grid["ny"], grid["nx"]) == (14, 27)


# ----------------------------------------------------------------------------- command


def test_folders_that_cannot_be_shown_are_refused_with_a_message(run_dir, tmp_path, capsys):
    not_a_run = tmp_path / "notes"
    not_a_run.mkdir()
    (not_a_run / "a.txt").write_text("x")
    without = tmp_path / "without"
    shutil.copytree(run_dir, without)
    (without / "trajectories.parquet").unlink()
    unfinished = tmp_path / "unfinished"
    (unfinished / "chunks").mkdir(parents=True)
    (unfinished / "chunks" / "manifest.json").write_text("{}")
    cases = [
        (tmp_path / "absent", "no such directory"),
        (not_a_run, "is not a result of tumble"),
        (without, "no stored trajectories"),
        (unfinished, "--resume"),
    ]
    for folder, message in cases:
        assert main(["view", str(folder), "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("tumble view: error: ") and message in err, err
        assert "Traceback" not in err
    # a port in use
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["view", str(run_dir), "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "choose another --port" in err, err


# -------------------------------------------------------------------------------- browser


@pytest.fixture(scope="module")
def server_url(run_dir):
    proc = subprocess.Popen(
        [sys.executable, "-m", "tumble.web.view", str(run_dir), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, f"the server did not print its address: {line!r}"
        yield match.group(0)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def open_view(watch, page, url):
    page.goto(url)
    page.wait_for_function(
        "window.tumbleView && (window.tumbleView.ready || window.tumbleView.error)",
        timeout=60_000,
    )
    assert page.evaluate("window.tumbleView.error") is None
    settle(page)
    return watch


def settle(page) -> None:
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def hold_at(page, t: float) -> None:
    page.evaluate(
        "window.tumbleView.params.playing = false;"
        f"window.tumbleView.params.time = {t}; window.tumbleView.refresh()"
    )
    settle(page)


def pixels(page) -> np.ndarray:
    from PIL import Image

    png = page.locator("#scene").screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def test_page_draws_the_run_and_plays_it_back(page_watch, page, server_url, run_dir):
    watch = open_view(page_watch, page, server_url)
    assert page.evaluate("document.body.dataset.state") == "ready"
    shot = pixels(page)
    drawn = np.abs(shot - BACKGROUND).sum(axis=-1) > 30
    assert drawn.mean() > 0.05
    assert len(np.unique(shot.reshape(-1, 3), axis=0)) > 100
    facts = page.locator("#facts")
    assert facts.locator('dd[data-field="rocks"]').inner_text() == str(N_ROCKS)
    s = summary(run_dir)
    assert facts.locator('dd[data-field="seed"]').inner_text() == str(s["seed"])
    assert facts.locator('dd[data-field="scheme"]').inner_text() == s["scheme"]
    from tumble.rockfall.ensemble import summary_line

    assert page.locator("#summary-line").inner_text() == summary_line(s)
    # playback: while playing the clock runs; rock 0 sits on its stored samples
    first = page.evaluate("window.tumbleView.params.time")
    page.wait_for_timeout(500)
    assert page.evaluate("window.tumbleView.params.time") != first
    table = pq.read_table(run_dir / "trajectories.parquet")
    rows = table.filter(table.column("rock").to_numpy() == 0)
    t = rows.column("t").to_numpy()
    origin = np.array(page.evaluate("window.tumbleView.run.origin"))
    positions = []
    page.evaluate("window.tumbleView.params.rockScale = 20")
    for k in (2, len(t) // 2):
        hold_at(page, float(t[k]))
        p = np.array(page.evaluate("window.tumbleView.rockPosition(0)")) + origin
        expected = [rows.column(c).to_numpy()[k] for c in "xyz"]
        np.testing.assert_allclose(p, expected, rtol=0, atol=1e-3)
        positions.append(p)
    assert np.linalg.norm(positions[1] - positions[0]) > 1.0
    hold_at(page, float(t[2]))
    before = pixels(page)
    hold_at(page, float(t[len(t) // 2]))
    assert (np.abs(pixels(page) - before).sum(axis=-1) > 30).mean() > 1e-4  # a rock moved
    assert watch.errors == [] and watch.external == []


def test_overlay_control_lists_the_rasters_and_draws_a_colour_bar(page_watch, page, server_url):
    watch = open_view(page_watch, page, server_url)
    select = page.locator('[data-control="overlay"] select')
    options = select.locator("option").all_inner_texts()
    names = page.evaluate("window.tumbleView.run.rasters")
    assert options == ["none", *names]
    hold_at(page, 0.0)
    before = pixels(page)
    select.select_option("reach_probability")
    page.wait_for_function("!document.getElementById('overlay-bar').hidden")
    settle(page)
    bar = page.locator("#overlay-bar").inner_text()
    assert "fraction of released rocks" in bar
    assert (np.abs(pixels(page) - before).sum(axis=-1) > 30).mean() > 0.005
    assert watch.errors == [] and watch.external == []


def test_a_rock_and_a_barrier_can_be_picked(page_watch, page, server_url):
    watch = open_view(page_watch, page, server_url)
    # a real click on a rock drawn 4 times its size, away from the others, with the paths left
    # out of the picking and the run's facts folded away
    page.locator("#info summary").click()
    page.evaluate(
        "window.tumbleView.params.rockScale = 4; window.tumbleView.params.trajectories = false;"
        "window.tumbleView.params.deposits = false;"
    )
    rocks = page.evaluate("window.tumbleView.run.trajectories.rocks")
    best = (0.0, None, None)
    for t in np.linspace(0.5, page.evaluate("window.tumbleView.run.trajectories.t_end"), 12):
        hold_at(page, float(t))
        xy = np.array([page.evaluate(f"window.tumbleView.project({r})") for r in rocks])
        for k in range(len(rocks)):
            gap = np.delete(np.linalg.norm(xy - xy[k], axis=1), k).min()
            inside = page.evaluate(f"document.elementFromPoint({xy[k, 0]}, {xy[k, 1]})?.id")
            if inside == "scene" and gap > best[0]:
                best = (gap, float(t), rocks[k])
    gap, t, rock = best
    # far enough from every other rock on screen that the click cannot land on one of them
    # (that the click picks this rock is asserted below)
    assert gap > 40, best
    hold_at(page, t)
    x, y = page.evaluate(f"window.tumbleView.project({rock})")
    page.mouse.click(x, y)
    page.wait_for_function(f"window.tumbleView.picked === {rock}", timeout=10_000)
    panel = page.locator("#panel")
    assert panel.is_visible()
    assert page.locator("#panel-title").inner_text() == f"Rock {rock}"
    assert panel.locator('dd[data-field="mass"]').inner_text() == "780 kg"
    for plot in ("velocity", "rotation"):
        canvas = panel.locator(f'canvas[data-plot="{plot}"]')
        shot = np.asarray(
            __import__("PIL.Image", fromlist=["Image"]).open(io.BytesIO(canvas.screenshot()))
        )
        assert len(np.unique(shot.reshape(-1, shot.shape[-1]), axis=0)) > 5, plot
    # the hook: a rock without a stored path shows its facts and says why there is no plot
    page.evaluate(f"window.tumbleView.pick({N_ROCKS - 1})")
    page.wait_for_function(f"window.tumbleView.picked === {N_ROCKS - 1}")
    assert "is not stored" in panel.inner_text()
    name = page.evaluate("window.tumbleView.pickBarrier(0)")
    assert name == "fence A"
    assert "UNI 11211-4" in panel.inner_text() and "E_d" in panel.inner_text()
    # the release (x = 3) lies left of the fence drawn along +y at x = 30
    side = panel.locator('dd[data-field="rocks come from"]').inner_text()
    assert side == "its left (seen from its first point)"
    assert watch.errors == [] and watch.external == []


def test_every_stored_rock_is_drawn_with_its_own_hull_and_size(tmp_path):
    """With two rock classes and a volume distribution, each stored rock is drawn as its class's
    hull scaled by its own size: the drawn hull, filled with the class's density, has the
    rock's mass (deposits.csv) and its principal moments (geometry.json) to round-off."""
    from tumble.bodies.polyhedron import ConvexPolyhedron
    from tumble.rockfall import Terrain
    from tumble.web.run_data import RunFolder

    x = np.arange(61.0)
    z = np.maximum(40.0 - x, 0.0) * math.tan(math.radians(35.0)) + 100.0
    Terrain.from_array(np.broadcast_to(z, (31, 61)), dx=1.0, crs=CRS).write(tmp_path / "s.tif")
    (tmp_path / "run.toml").write_text(
        'dem = "s.tif"\nrocks = 8\nt_max = 2.0\n\n[release]\npoint = [3.0, 15.0]\n\n'
        "[output]\ntrajectories = 8\n\n"
        '[[rock.classes]]\nname = "small"\nshape = "eota111"\nmass = 200.0\nshare = 0.5\n'
        '[[rock.classes]]\nname = "large"\nshape = "eota221"\nshare = 0.5\n'
        'volume = { distribution = "lognormal", median = 0.3, sigma = 0.4 }\n'
    )
    out = tmp_path / "run"
    argv = ["rockfall", "run", "--config", str(tmp_path / "run.toml"), "--no-figures"]
    assert main([*argv, "--quiet", "--out", str(out)]) == 0
    folder = RunFolder(out)
    layout = folder.trajectory_layout()
    shapes = folder.rock_shapes
    assert len(shapes) == 2
    assert len(set(layout["shape_id"])) == 2 and len(set(layout["scale"])) > 2
    deposits = folder.deposit_table
    stored = folder.geometry["rocks"]
    for rock, sid, scale in zip(layout["rocks"], layout["shape_id"], layout["scale"], strict=True):
        geometry = folder.geometry["shapes"][sid]
        density = geometry["mass_kg"] / geometry["volume_m3"]
        hull = ConvexPolyhedron.from_points(np.array(shapes[sid]["vertices"]) * scale)
        mass = density * hull.volume
        row = int(np.flatnonzero(deposits["rock"] == rock)[0])
        at = list(stored["rock"]).index(rock)
        np.testing.assert_allclose(mass, stored["mass_kg"][at], rtol=1e-9)
        if "mass_kg" in deposits:
            np.testing.assert_allclose(mass, deposits["mass_kg"][row], rtol=1e-6)
        filled = ConvexPolyhedron.from_points(np.array(shapes[sid]["vertices"]) * scale, mass=mass)
        np.testing.assert_allclose(
            np.diag(filled.inertia_tensor), stored["inertia_kg_m2"][at], rtol=1e-9
        )
