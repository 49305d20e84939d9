"""The Tschamut 2014 held-out check: the data reader, the releases, a run on a plane, the CLI.

The field data are not shipped; the real-data test reads ``$TUMBLE_TSCHAMUT_DATA`` (default
``/tmp/tschamut_data``) and skips without it. The others write a small directory in the same
format on a plane whose numbers are known by hand.
"""

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from tumble.cli.main import main
from tumble.errors import DataError
from tumble.rockfall.clearance import Hulls, rock_clearances
from tumble.rockfall.soil import Soil
from tumble.rotation.quaternion import quat_to_matrix
from tumble.validation import tschamut as T

#: the plane of the synthetic data set: z = (LX - x) tan(SLOPE), x in [0, LX], y in [0, LY]
SLOPE, LX, LY, CELL = 30.0, 100.0, 80.0, 5.0
TAN = math.tan(math.radians(SLOPE))

RELEASE_HEADER = (
    "trajectory_id,experiment_id,x_m,y_m,z_m,ground_z_m,vx_mps,vy_mps,vz_mps,block_id,"
    "mass_kg,radius_m,source"
)
DEPOSITION_HEADER = (
    "trajectory_id,experiment_id,x_m,y_m,z_m,ground_z_m,release_x_m,release_y_m,release_z_m,"
    "observed_runout_m,block_id,mass_kg,radius_m,source"
)
#: runs: id, block, release (x, y), velocity, stop (x, y); the stops 50 m (3-4-5) and 40 m away
RUNS = (
    ("r1", "1", (10.0, 20.0), (0.5, -0.25, 0.125), (40.0, 60.0)),
    ("r2", "2", (12.0, 25.0), (0.0, 0.0, 0.0), (52.0, 25.0)),
)
BLOCKS = {"1": ("Cube", 54.0, 0.15, (0.3, 0.3, 0.3)), "2": ("Slab", 48.0, 0.14, (0.4, 0.3, 0.2))}


def assert_released_clear(data, states, shapes, shape_id):
    """Every released rock lies over the terrain with its lowest point RELEASE_CLEARANCE above
    it (the exact hull clearance, to 1e-9 m)."""
    gap, on = rock_clearances(
        data.terrain,
        Hulls.of(shapes, shape_id),
        0,
        states.position,
        quat_to_matrix(states.orientation),
    )
    assert on.all()
    np.testing.assert_allclose(gap, T.RELEASE_CLEARANCE, atol=1e-9)


def _height(x):
    return (LX - x) * TAN


def write_data(folder: Path, runout=None, drop=(), nan_in=None) -> Path:
    """A data directory in the processed format on the plane; ``runout``: replaces the first
    run's observed_runout_m; ``drop``: (file, column) left out; ``nan_in``: (file, column) of the
    first row set to nan."""
    folder.mkdir(parents=True, exist_ok=True)
    release = [RELEASE_HEADER]
    deposition = [DEPOSITION_HEADER]
    for k, (rid, b, (x, y), v, (sx, sy)) in enumerate(RUNS):
        name, mass, radius, _ = BLOCKS[b]
        rz, sz = _height(x) + radius, _height(sx) + radius
        release.append(
            f"{rid},t,{x},{y},{rz},{_height(x)},{v[0]},{v[1]},{v[2]},{b},{mass},{radius},s"
        )
        dist = math.hypot(sx - x, sy - y) if (runout is None or k) else runout
        deposition.append(
            f"{rid},t,{sx},{sy},{sz},{_height(sx)},{x},{y},{rz},{dist},{b},{mass},{radius},s"
        )
    blocks = ["block_id,name,mass_kg,radius_m,size_x_m,size_y_m,size_z_m"]
    blocks += [f"{b},{n},{m},{r},{s[0]},{s[1]},{s[2]}" for b, (n, m, r, s) in BLOCKS.items()]
    for name, lines in (
        (T.RELEASE_FILE, release),
        (T.DEPOSITION_FILE, deposition),
        (T.BLOCK_FILE, blocks),
    ):
        header = lines[0].split(",")
        rows = [line.split(",") for line in lines]
        if nan_in is not None and nan_in[0] == name:
            rows[1][header.index(nan_in[1])] = "nan"
        keep = [i for i, c in enumerate(header) if (name, c) not in drop]
        text = "\n".join(",".join(r[i] for i in keep) for r in rows) + "\n"
        (folder / name).write_text(text)
    nx, ny = int(LX / CELL) + 1, int(LY / CELL) + 1
    grid = [f"ncols {nx}", f"nrows {ny}", "xllcorner 0.0", "yllcorner 0.0", f"cellsize {CELL}"]
    grid.append("NODATA_value -9999")
    for _ in range(ny):  # rows from the north; the plane does not depend on y
        grid.append(" ".join(f"{_height(i * CELL):.9f}" for i in range(nx)))
    (folder / T.TERRAIN_FILE).write_text("\n".join(grid) + "\n")
    return folder


# --- the reader --------------------------------------------------------------------------------


def test_load_reads_the_values_exactly(tmp_path):
    data = T.load(write_data(tmp_path / "d"))
    assert data.run_id == ("r1", "r2")
    assert data.block_id == ("1", "2")
    np.testing.assert_array_equal(data.release[:, :2], [[10.0, 20.0], [12.0, 25.0]])
    np.testing.assert_array_equal(data.velocity[0], [0.5, -0.25, 0.125])
    np.testing.assert_array_equal(data.stop[:, :2], [[40.0, 60.0], [52.0, 25.0]])
    assert data.blocks["2"].size == (0.4, 0.3, 0.2)
    assert data.blocks["2"].mass == 48.0
    # 54 kg in a 0.3 m cube: 2000 kg/m^3
    assert data.blocks["1"].box_density == pytest.approx(2000.0, rel=1e-12)
    np.testing.assert_array_equal(data.mass, [54.0, 48.0])
    # horizontal run-out: the 3-4-5 triangle (30, 40) and 40 m along x
    np.testing.assert_allclose(data.runout, [50.0, 40.0], rtol=0, atol=1e-12)
    # energy-line angle: drop (stop 30 m further down the 30 degree plane) over 50 m
    drop = 30.0 * TAN
    assert data.reach_angle[0] == pytest.approx(math.degrees(math.atan(drop / 50.0)), abs=1e-9)
    # heights are sampled at xllcorner + i cellsize: the grid's nodes hold the plane exactly
    x = np.array([0.0, 5.0, 37.5, 100.0])
    np.testing.assert_allclose(data.terrain.height(x, np.full(4, 10.0)), _height(x), atol=1e-8)
    assert data.terrain.x0 == 0.0 and data.terrain.y0 == 0.0 and data.terrain.crs is None
    for what in ("release", "stop"):
        assert data.ground_check[what]["max_abs_m"] < 1e-8


def test_data_directory_required_and_source_named(tmp_path):
    with pytest.raises(DataError, match=r"envidat\.34"):
        T.data_directory(None)
    with pytest.raises(DataError, match="not found"):
        T.data_directory(tmp_path / "nowhere")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"drop": {(T.RELEASE_FILE, "vz_mps")}}, "missing column.*vz_mps"),
        ({"drop": {(T.BLOCK_FILE, "size_y_m")}}, "missing column.*size_y_m"),
        ({"nan_in": (T.DEPOSITION_FILE, "y_m")}, "y_m is nan"),
        ({"nan_in": (T.RELEASE_FILE, "mass_kg")}, "mass_kg is nan"),
        ({"runout": 49.0}, "observed_runout_m 49.0 is not the horizontal distance"),
    ],
)
def test_load_refuses_bad_input(tmp_path, kwargs, message):
    folder = write_data(tmp_path / "d", **kwargs)
    with pytest.raises(DataError, match=message):
        T.load(folder)


def test_load_refuses_missing_files_and_mismatched_ids(tmp_path):
    folder = write_data(tmp_path / "d")
    (folder / T.TERRAIN_FILE).unlink()
    with pytest.raises(DataError, match=r"terrain\.asc: file not found"):
        T.load(folder)
    folder = write_data(tmp_path / "e")
    path = folder / T.DEPOSITION_FILE
    path.write_text(path.read_text().replace("r2,", "r9,"))
    with pytest.raises(
        DataError, match=r"only in release_points.csv: r2.*observed_deposition.csv: r9"
    ):
        T.load(folder)
    folder = write_data(tmp_path / "f")
    path = folder / T.RELEASE_FILE
    path.write_text(path.read_text().replace(",54.0,", ",55.0,"))
    with pytest.raises(DataError, match="differs from block 1"):
        T.load(folder)


# --- releases and runs -------------------------------------------------------------------------


def test_releases_sit_just_above_the_terrain_at_the_measured_point(tmp_path):
    """Every rock: centre above its run's release point, the measured velocity, no spin, and
    the exact hull clearance RELEASE_CLEARANCE; orientations from the rocks' own streams."""
    data = T.load(write_data(tmp_path / "d"))
    states, run_index, orientation, shapes, shape_id = T.releases(data, 3, seed=7)
    np.testing.assert_array_equal(run_index, [0, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(orientation, [0, 1, 2, 0, 1, 2])
    np.testing.assert_array_equal(states.position[:, :2], data.release[run_index, :2])
    np.testing.assert_array_equal(states.velocity, data.velocity[run_index])
    assert not states.omega.any()
    assert_released_clear(data, states, shapes, shape_id)
    # the box carries the measured mass; the EOTA111 the measured mass at EOTA_DENSITY
    assert shapes[0].mass == pytest.approx(54.0, rel=1e-12)
    eota = data.blocks["2"].rock("eota111")
    assert eota.mass == pytest.approx(48.0, rel=1e-12)
    assert eota.volume == pytest.approx(48.0 / T.EOTA_DENSITY, rel=1e-9)
    again = T.releases(data, 3, seed=7)[0]
    np.testing.assert_array_equal(again.orientation, states.orientation)
    assert not np.array_equal(T.releases(data, 3, seed=8)[0].orientation, states.orientation)


def test_natural_shapes_are_the_authume_hulls_stretched_to_the_measured_block(tmp_path):
    """shape "natural": for each block one rock per hull of NATURAL_HULLS, whose extents along
    its principal axes are the measured lengths (longest to longest, to 1e-9 m) and whose mass
    is the measured one; orientation j of a run takes hull j mod 4, every rock released with
    the clearance; the same orientations as the box."""
    data = T.load(write_data(tmp_path / "d"))
    box, *_ = T.releases(data, 8, seed=7)
    states, run_index, orientation, shapes, shape_id = T.releases(data, 8, seed=7, shape="natural")
    np.testing.assert_array_equal(states.orientation, box.orientation)
    hulls = len(T.NATURAL_HULLS)
    assert len(shapes) == hulls * len(data.blocks)
    names = tuple(data.blocks)
    for k, (run, j) in enumerate(zip(run_index, orientation, strict=True)):
        assert shape_id[k] == names.index(data.block_id[run]) * hulls + j % hulls
    for b, name in enumerate(names):
        block = data.blocks[name]
        for h, rock in enumerate(shapes[b * hulls : (b + 1) * hulls]):
            assert rock.name == T.NATURAL_HULLS[h]
            assert rock.mass == pytest.approx(block.mass, rel=1e-12)
            extent = np.sort(np.ptp(rock.vertices, axis=0))[::-1]
            np.testing.assert_allclose(extent, sorted(block.size, reverse=True), atol=1e-9)
            # a natural hull fills less than its bounding box: denser than the box
            assert rock.mass / rock.volume > block.box_density
    assert_released_clear(data, states, shapes, shape_id)
    with pytest.raises(ValueError, match="natural_rocks"):
        data.blocks[names[0]].rock("natural")


def test_bounding_placement_puts_the_centre_a_bounding_radius_above_the_ground(tmp_path):
    """placement "bounding": the same rocks and orientations, the centre its hull's bounding
    radius above the terrain below it, or higher where the clearance placement needs it (the
    ground beside the centre rises on a slope); never lower than the clearance placement;
    "recorded": the bounding radius above the files' ground (recorded centre less the block's
    equivalent radius); an unknown placement is refused."""
    from tumble.rockfall.clearance import Hulls

    data = T.load(write_data(tmp_path / "d"))
    near, *_ = T.releases(data, 3, seed=7)
    states, run_index, _, shapes, shape_id = T.releases(data, 3, seed=7, placement="bounding")
    np.testing.assert_array_equal(states.orientation, near.orientation)
    np.testing.assert_array_equal(states.position[:, :2], near.position[:, :2])
    radius = np.array([Hulls.of(s).radius(0) for s in shapes])[shape_id]
    ground = data.terrain.height(states.position[:, 0], states.position[:, 1])
    expected = np.maximum(ground + radius, near.position[:, 2])
    np.testing.assert_allclose(states.position[:, 2], expected, rtol=0, atol=1e-12)
    assert np.all(states.position[:, 2] >= near.position[:, 2])
    recorded, *_ = T.releases(data, 3, seed=7, placement="recorded")
    ground = np.array(
        [data.release[k, 2] - data.blocks[data.block_id[k]].radius for k in run_index]
    )
    expected = np.maximum(ground + radius, near.position[:, 2])
    np.testing.assert_allclose(recorded.position[:, 2], expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="placement"):
        T.releases(data, 3, seed=7, placement="dropped")


def test_no_early_stop_on_a_plane_steeper_than_the_soil_holds(tmp_path):
    """On a plane steeper than the category's holding angle (atan mu_max of the friction law)
    no rock can come to rest (friction at most mu_max times the normal force): none stops, each
    runs beyond 1.4 m, the early-stop shares are zero; the result does not depend on the threads."""
    category = "l14_scarring"  # mu_max = 1.3: holds up to 52.4 degrees
    steep = 60.0
    assert Soil.preset(category).holding_angle() < steep
    folder = write_data(tmp_path / "d")
    global_slope = math.tan(math.radians(steep))
    nx, ny = int(LX / CELL) + 1, int(LY / CELL) + 1
    lines = (folder / T.TERRAIN_FILE).read_text().splitlines()[:6]
    lines += [" ".join(f"{(LX - i * CELL) * global_slope:.9f}" for i in range(nx))] * ny
    (folder / T.TERRAIN_FILE).write_text("\n".join(lines) + "\n")
    data = T.load(folder)
    run = T.run_category(data, category, orientations=4, seed=0, t_max=8.0, workers=1)
    assert len(run) == 8
    assert "stopped" not in run.status
    assert (run.runout > 1.4).all()
    metrics = T.category_metrics(run, data)
    assert metrics["stopped_within_10_m"] == 0.0
    assert metrics["stopped_within_1.4_m"] == 0.0
    assert metrics["left_terrain"] + metrics["timed_out"] == 8
    assert metrics["runout_ratio"] == pytest.approx(
        np.median(run.runout) / np.median(data.runout), rel=1e-12
    )
    two = T.run_category(data, category, orientations=4, seed=0, t_max=8.0, workers=2)
    np.testing.assert_array_equal(two.stop, run.stop)


def test_uncertainty_sets_draw_from_the_soil_streams(tmp_path):
    """``sets``: rock k runs with set floor(u_0 n_sets) of its soil stream, as soil.uncertainty."""
    from tumble.rockfall.site.soil_uncertainty import soil_rng
    from tumble.rockfall.soil import CATALOGUE

    data = T.load(write_data(tmp_path / "d"))
    run = T.run_category(data, "medium", "sets", orientations=2, seed=3, t_max=2.0)
    n_sets = len(CATALOGUE["medium"].sets)
    expected = [min(int(soil_rng(3, k).random(1)[0] * n_sets), n_sets - 1) for k in range(4)]
    np.testing.assert_array_equal(run.soil_set, expected)
    with pytest.raises(ValueError, match="no equivalent parameter sets"):
        T.run_category(data, "lu2019", "sets", orientations=1)


# --- the command -------------------------------------------------------------------------------


def test_cli_writes_metrics_stops_and_figure(tmp_path, capsys):
    folder = write_data(tmp_path / "d")
    out = tmp_path / "out"
    argv = ["validate", "tschamut", "--data-dir", str(folder), "--out", str(out)]
    argv += ["--orientations", "2", "--t-max", "3", "--soil", "lu2019,medium:sets"]
    assert main(argv) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics["categories"]) == {"lu2019", "medium:sets"}
    assert metrics["measured"]["median_runout_m"] == pytest.approx(45.0)
    assert metrics["held_out"] is True
    rows = (out / "stops.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 2 * 2 * 2  # header, 2 categories x 2 runs x 2 orientations
    assert (out / "runout.png").stat().st_size > 0
    assert main(["validate", "tschamut", "--out", str(tmp_path / "x")]) == 2
    assert "envidat.34" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


# --- the field data ----------------------------------------------------------------------------

REAL = Path(os.environ.get(T.DATA_ENV, "/tmp/tschamut_data"))


@pytest.mark.skipif(not (REAL / T.RELEASE_FILE).is_file(), reason="Tschamut data not present")
def test_real_data_load_and_release():
    """The field data: 80 runs whose observed_runout_m is the horizontal distance (checked by
    load), three blocks, every release just above the terrain; a short run accounts for every
    rock."""
    data = T.load(REAL)
    assert len(data) == 80
    assert len(data.blocks) == 3
    states, _, _, shapes, shape_id = T.releases(data, 1, seed=0)
    assert_released_clear(data, states, shapes, shape_id)
    run = T.run_category(data, "medium", orientations=1, seed=0, t_max=2.0)
    metrics = T.category_metrics(run, data)
    assert sum(metrics["status_counts"].values()) == 80
    for d in T.EARLY_STOP_DISTANCES:
        assert 0.0 <= metrics[f"stopped_within_{d:g}_m"] <= 1.0
