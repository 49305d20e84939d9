"""``plot_profile`` on a run folder of ``tumble rockfall run``: the run's DEM and one stored rock,
the figure written under ``figures/`` by default, clear errors for a folder that is not a run or a
rock that was not stored; the old call form (trajectory, terrain, path) unchanged."""

import itertools
import json
import math

import numpy as np
import pytest
from PIL import Image

from tumble.cli.main import main
from tumble.rockfall import Terrain
from tumble.viz.rockfall import plot_profile, read_run_trajectory

#: figsize (9, 6) inches at 130 dpi
PROFILE_SIZE = (1170, 780)


@pytest.fixture(scope="module")
def dem(tmp_path_factory):
    """A 35 degree slope with a flat foot, 1 m grid, origin not zero (as tests/cli)."""
    x = np.arange(51.0)
    z = np.maximum(30.0 - x, 0.0) * math.tan(math.radians(35.0))
    heights = np.broadcast_to(z, (31, 51))
    terrain = Terrain.from_array(heights, x0=2600000.0, y0=1200000.0, dx=1.0, crs="EPSG:2056")
    path = tmp_path_factory.mktemp("dem") / "slope.tif"
    terrain.write(path)
    return path


def rockfall_run(dem, out, *extra) -> None:
    code = main(
        [
            "rockfall",
            "run",
            "--dem",
            str(dem),
            "--release",
            "2600003,1200015",
            "--t-max",
            "3",
            "--out",
            str(out),
            *extra,
        ]
    )
    assert code == 0


@pytest.fixture(scope="module")
def run_dir(dem, tmp_path_factory):
    """Three rocks, the trajectories of two stored (rock 0 and one other; every 5 steps)."""
    out = tmp_path_factory.mktemp("runs") / "three"
    rockfall_run(dem, out, "--rocks", "3", "output.trajectories=2", "output.trajectory_every=5")
    return out


def kept_rocks(run_dir) -> list[int]:
    """The rocks whose trajectories the run stored."""
    return json.loads((run_dir / "summary.json").read_text())["trajectories"]["rocks"]


def assert_png(path, size=PROFILE_SIZE) -> None:
    assert path.is_file()
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == size
        image.verify()


def test_profile_of_a_run_folder(run_dir):
    assert (run_dir / "figures" / "profile.png").is_file()  # the run's own figure (old form)
    written = plot_profile(run_dir)
    assert written == run_dir / "figures" / "profile_rock0.png"
    assert_png(written)
    other = kept_rocks(run_dir)[1]
    second = plot_profile(run_dir, rock=other)
    assert second == run_dir / "figures" / f"profile_rock{other}.png"
    assert_png(second)
    # a path of one's own, given as a string
    own = plot_profile(str(run_dir), rock=other, path=run_dir / "mine.png", title="a rock")
    assert own == run_dir / "mine.png"
    assert_png(own)


def test_stored_trajectory_matches_the_sample(run_dir):
    import pyarrow.parquet as pq

    table = pq.read_table(run_dir / "trajectories.parquet").to_pydict()
    rocks = np.array(table["rock"])
    other = kept_rocks(run_dir)[1]
    stored = read_run_trajectory(run_dir, rock=other)
    assert stored.source == run_dir / "trajectories.parquet"
    np.testing.assert_array_equal(stored.t, np.array(table["t"])[rocks == other])
    np.testing.assert_array_equal(stored.position[:, 2], np.array(table["z"])[rocks == other])
    np.testing.assert_array_equal(stored.omega[:, 0], np.array(table["omega_x"])[rocks == other])
    assert stored.position.shape == stored.omega.shape == (stored.t.size, 3)


def test_rock_not_stored_names_the_stored_rocks(run_dir):
    kept = kept_rocks(run_dir)
    [missing] = sorted({0, 1, 2} - set(kept))
    stored = rf"holds rock\(s\) {kept[0]}, {kept[1]}"
    with pytest.raises(ValueError, match=rf"rock {missing} is not stored .*{stored}"):
        plot_profile(run_dir, rock=missing)
    with pytest.raises(ValueError, match="non-negative integer"):
        plot_profile(run_dir, rock=-1)


def test_a_folder_that_is_not_a_run_is_named(tmp_path):
    empty = tmp_path / "not-a-run"
    empty.mkdir()
    with pytest.raises(ValueError, match="not-a-run is not a rockfall run folder"):
        plot_profile(empty)
    with pytest.raises(ValueError, match="missing is not a rockfall run folder"):
        plot_profile(tmp_path / "missing")


def test_one_rock_run_reads_the_whole_trajectory(dem, tmp_path):
    out = tmp_path / "one"
    rockfall_run(dem, out, "--rocks", "1", "--no-figures", "output.trajectories=0")
    stored = read_run_trajectory(out)
    assert stored.source == out / "trajectory.parquet"
    assert stored.t.size > 100 and np.all(np.diff(stored.t) > 0)
    assert_png(plot_profile(out))
    assert (out / "figures" / "profile_rock0.png").is_file()
    with pytest.raises(ValueError, match=r"rock 1 is not stored .*rock 0 only"):
        plot_profile(out, rock=1)


def test_old_call_form_needs_terrain_and_path(run_dir, tmp_path):
    stored = read_run_trajectory(run_dir)
    terrain = Terrain.from_file(run_dir / "rasters" / "dem.tif")
    path = plot_profile(stored, terrain, tmp_path / "old.png", "rock 0")
    assert_png(path)
    with pytest.raises(TypeError, match="needs the terrain"):
        plot_profile(stored)
    with pytest.raises(TypeError, match="pass no terrain"):
        plot_profile(run_dir, terrain)


def test_envelope_mask_is_the_closing_by_a_disk_with_holes_filled():
    """envelope_mask (distance transforms) against scipy's binary_closing by the disk
    i^2 + j^2 <= r^2 on a padded grid, then binary_fill_holes: the same cells on random grids
    and radii, including masks touching the border."""
    from scipy import ndimage

    from tumble.viz.rockfall import envelope_mask

    rng = np.random.default_rng(7)
    for _ in range(60):
        shape = tuple(int(n) for n in rng.integers(3, 70, 2))
        reached = rng.random(shape) < rng.uniform(0.0, 0.25)
        r = int(rng.integers(1, 15))
        yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
        padded = np.pad(reached, r + 1)
        closed = ndimage.binary_closing(padded, structure=xx**2 + yy**2 <= r * r)
        expected = ndimage.binary_fill_holes(closed[r + 1 : -r - 1, r + 1 : -r - 1] | reached)
        passing = np.where(reached, 3.0, np.nan)
        np.testing.assert_array_equal(envelope_mask(passing, r), expected)


@pytest.mark.parametrize(("rows", "cols"), [(100, 125), (200, 40), (30, 300)])
def test_the_energy_map_fills_its_figure_with_readable_ticks(monkeypatch, rows, cols):
    """The energy map of a reached area in LV95 (2 m cells; square, tall and wide) takes the
    figure's shape: the map is at least 55 % of the figure's width and height (the rest holds
    the ticks, labels, title and colour bar), its tick labels are whole coordinates without an
    offset, no two of them overlap, and all of them lie inside the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    import tumble.viz.rockfall as figures

    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, path, dpi: drawn.append(fig))
    heights = np.tile(np.linspace(300.0, 0.0, cols + 20), (rows + 20, 1))
    terrain = Terrain.from_array(heights, x0=2_600_000.0, y0=1_200_000.0, dx=2.0, crs="EPSG:2056")
    passing = np.zeros(heights.shape)
    passing[10 : 10 + rows, 10 : 10 + cols] = 3.0
    energy = np.where(
        passing > 0, np.linspace(1.0, 900.0, heights.size).reshape(passing.shape), np.nan
    )
    rasters = {"kinetic_energy_max": energy, "passing_count": passing}
    figures.plot_energy_map(terrain, rasters, "unused.png", title="Maximum kinetic energy")
    (fig,) = drawn
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    box = ax.get_window_extent(renderer)
    area = box.width * box.height / (fig.bbox.width * fig.bbox.height)
    assert area >= (0.5 if rows == 100 else 0.15), area
    for axis in (ax.xaxis, ax.yaxis):
        assert axis.get_offset_text().get_text() == ""
        low, high = sorted(axis.get_view_interval())
        ticks = zip(axis.get_majorticklocs(), axis.get_ticklabels(), strict=True)
        inside = [t for loc, t in ticks if low <= loc <= high and t.get_text()]
        assert len(inside) >= 2
        boxes = sorted(
            (t.get_window_extent(renderer) for t in inside),
            key=lambda b: b.x0 if axis is ax.xaxis else b.y0,
        )
        for a, b in itertools.pairwise(boxes):
            assert (a.x1 <= b.x0) if axis is ax.xaxis else (a.y1 <= b.y0)
        for b in boxes:
            assert b.x0 >= 0.0 and b.x1 <= fig.bbox.width and b.y0 >= 0.0
        assert all(t.get_text().lstrip("−-").isdigit() for t in inside)
