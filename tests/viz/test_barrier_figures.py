"""``plot_barrier``: both PNGs written and valid, for a net with crossings and for a barrier no
rock crossed; the file names use a file-safe slug of the barrier's name."""

import re
from dataclasses import dataclass

import numpy as np
import pytest
from PIL import Image

from tumble.rockfall.hazard.design import DesignFactors, barrier_statistics
from tumble.viz.barriers import barrier_slug, plot_barrier


@dataclass
class Barrier:
    name: str
    kind: str = "net"
    height: float | None = 3.0
    capacity: float | None = 500.0
    length: float = 40.0


def crossings(name: str, n: int = 150) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    energy = rng.lognormal(5.0, 0.8, n)
    height = rng.gamma(2.0, 0.7, n)
    outcome = np.where(
        height > 3.0, "overtopped", np.where(energy > 500.0, "broke_through", "caught")
    )
    return {
        "rock": np.arange(n),
        "barrier": np.array([name] * n, dtype=object),
        "t_s": rng.uniform(2.0, 5.0, n),
        "x": rng.uniform(0.0, 40.0, n),
        "y": np.zeros(n),
        "along_m": rng.uniform(0.0, 40.0, n),
        "passing_height_m": height,
        "top_height_m": height + 0.4,
        "velocity_ms": np.sqrt(2.0 * energy * 1000.0 / 2000.0),
        "kinetic_energy_kJ": energy,
        "rotational_energy_kJ": 0.1 * energy,
        "rotational_velocity_rad_s": rng.uniform(0.0, 10.0, n),
        "mass_kg": np.full(n, 2000.0),
        "direction": np.array(["downslope"] * n, dtype=object),
        "outcome": outcome.astype(object),
    }


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("fence A/B (north)", "fence_a_b_north"),
        ("Barriera è/1", "barriera_e_1"),
        ("../..", "barrier"),
        ("net-2.v1", "net-2.v1"),
    ],
)
def test_slug_is_file_safe(name, slug):
    assert barrier_slug(name) == slug
    assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*", barrier_slug(name))


def check_png(path) -> None:
    assert path.is_file()
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size[0] > 500 and image.size[1] > 300


def test_plot_barrier_writes_valid_pngs(tmp_path):
    name = "fence A/B (north)"
    barrier = Barrier(name)
    table = crossings(name)
    (stats,) = barrier_statistics(table, [barrier], 200, DesignFactors(), seed=3)
    paths = plot_barrier(stats, table, barrier, tmp_path / "figures")
    assert [p.name for p in paths] == [
        "barrier_fence_a_b_north_exceedance.png",
        "barrier_fence_a_b_north_along.png",
    ]
    assert all(p.parent == tmp_path / "figures" for p in paths)
    for path in paths:
        check_png(path)


def test_plot_barrier_nobody_crossed(tmp_path):
    barrier = Barrier("empty line", kind="line", height=None, capacity=None)
    table = crossings("another barrier", n=20)
    (stats,) = barrier_statistics(table, [barrier], 20, DesignFactors(), seed=3)
    assert stats["rocks_crossing"] == 0
    paths = plot_barrier(stats, table, barrier, tmp_path)
    assert [p.name for p in paths] == [
        "barrier_empty_line_exceedance.png",
        "barrier_empty_line_along.png",
    ]
    for path in paths:
        check_png(path)


@pytest.mark.parametrize("name", ["dam", "observation line at the foot of the talus, north"])
def test_the_titles_lie_inside_their_figures(tmp_path, monkeypatch, name):
    """Both figures' titles (the name, the kind and the side rocks come from, and what the
    figure shows; a long name on two lines) lie inside the figure, left, right and top, and
    above the axes with their labels: nothing of them is clipped."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    import tumble.viz.barriers as figures

    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, path, dpi: drawn.append(fig))
    barrier = Barrier(name, kind="line", height=None, capacity=None)
    table = crossings(name)
    (stats,) = barrier_statistics(table, [barrier], 200, DesignFactors(), seed=3)
    stats = {**stats, "uphill": "right"}
    plot_barrier(stats, table, barrier, tmp_path)
    assert len(drawn) == 2
    for fig in drawn:
        renderer = FigureCanvasAgg(fig).get_renderer()
        titles = [fig._suptitle] if fig._suptitle is not None else []
        titles += [ax.title for ax in fig.axes if ax.get_title()]
        assert len(titles) == 1
        box = titles[0].get_window_extent(renderer)
        width, height = fig.bbox.width, fig.bbox.height
        assert box.x0 >= 0.0 and box.x1 <= width and box.y1 <= height, (name, box, width)
        below = max(ax.get_tightbbox(renderer, for_layout_only=True).y1 for ax in fig.axes)
        if titles[0] is fig._suptitle:
            assert box.y0 >= below, (box, below)
        assert name in titles[0].get_text().replace("\n", " ")
