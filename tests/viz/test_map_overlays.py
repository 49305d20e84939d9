"""Names of barrier lines on a report map: inside the map, whatever edge the line ends at."""

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tumble.viz.map_overlays import draw_barriers

EXTENT = (0.0, 1000.0, 0.0, 800.0)


@pytest.mark.parametrize(
    "line",
    [
        [[600.0, 100.0], [995.0, 400.0]],  # ends at the east edge
        [[100.0, 300.0], [300.0, 798.0]],  # ends at the north edge
        [[700.0, 200.0], [990.0, 795.0]],  # ends in the north-east corner
        [[5.0, 10.0], [40.0, 50.0]],  # in the south-west corner
        [[500.0, 500.0], [1400.0, 900.0]],  # runs off the map: named at its last point on it
    ],
)
def test_a_barrier_s_name_lies_inside_the_map(line):
    """The bounding box of the name, drawn with its font, lies inside the map's axes."""
    fig = Figure(figsize=(6.0, 4.8))
    ax = fig.add_axes((0.1, 0.1, 0.8, 0.8))
    geometry = {"barriers": [{"name": "valley net", "kind": "net", "line": line}]}
    assert draw_barriers(ax, geometry, EXTENT) == 1
    ax.set_xlim(EXTENT[0], EXTENT[1])
    ax.set_ylim(EXTENT[2], EXTENT[3])
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    (name,) = [t for t in ax.texts if t.get_text() == "valley net"]
    box, frame = name.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert frame.x0 <= box.x0 and box.x1 <= frame.x1, (box, frame)
    assert frame.y0 <= box.y0 and box.y1 <= frame.y1, (box, frame)


def test_a_barrier_off_the_map_is_drawn_without_a_name():
    fig = Figure()
    ax = fig.add_axes((0.1, 0.1, 0.8, 0.8))
    geometry = {"barriers": [{"name": "far", "kind": "line", "line": [[2e3, 0.0], [3e3, 0.0]]}]}
    assert draw_barriers(ax, geometry, EXTENT) == 1
    assert [t.get_text() for t in ax.texts] == []
