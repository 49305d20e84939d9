"""PNG files of the figures written by ``tumble.viz.png``: the pixels ``savefig`` writes."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from tumble.viz.png import figure_pixels, save_figure, save_png


def drawing(transparent: bool = False) -> Figure:
    """A figure with text, lines, an image over another at alpha 0.8 and a colour bar."""
    fig = Figure(figsize=(4.3, 2.7))
    if transparent:
        fig.patch.set_alpha(0.0)
    ax = fig.add_axes((0.12, 0.15, 0.6, 0.75))
    rng = np.random.default_rng(7)
    ax.imshow(rng.random((40, 70)), cmap="gray", origin="lower", interpolation="nearest")
    shown = ax.imshow(rng.random((40, 70)), cmap="viridis", alpha=0.8, origin="lower")
    ax.plot([3, 60], [5, 30], "r-", lw=2, label="a line")
    ax.set_title("Reach probability, 800 rocks")
    ax.legend(fontsize=7)
    fig.colorbar(shown, cax=fig.add_axes((0.78, 0.15, 0.04, 0.75)))
    return fig


@pytest.mark.parametrize("dpi", [120, 130, 97])
def test_a_png_holds_the_pixels_savefig_writes(tmp_path, dpi):
    """The file of ``save_png`` decodes to the image of ``savefig``'s file, pixel for pixel, as
    RGB (every pixel is opaque), with matplotlib's Software text and the resolution."""
    fig = drawing()
    fig.savefig(tmp_path / "savefig.png", dpi=dpi)
    save_png(fig, tmp_path / "fast.png", dpi)
    want, got = Image.open(tmp_path / "savefig.png"), Image.open(tmp_path / "fast.png")
    assert (want.mode, got.mode) == ("RGBA", "RGB")
    assert got.size == want.size == (int(4.3 * dpi), int(2.7 * dpi))
    np.testing.assert_array_equal(np.asarray(got.convert("RGBA")), np.asarray(want))
    assert got.info["Software"] == want.info["Software"]
    assert got.info["dpi"] == pytest.approx(want.info["dpi"])
    assert (tmp_path / "fast.png").stat().st_size < (tmp_path / "savefig.png").stat().st_size


def test_a_transparent_figure_keeps_its_alpha(tmp_path):
    fig = drawing(transparent=True)
    fig.savefig(tmp_path / "savefig.png", dpi=100)
    save_png(fig, tmp_path / "fast.png", 100)
    got = Image.open(tmp_path / "fast.png")
    assert got.mode == "RGBA"
    np.testing.assert_array_equal(np.asarray(got), np.asarray(Image.open(tmp_path / "savefig.png")))
    assert figure_pixels(fig, 100)[0, 0, 3] == 0  # the corner: the transparent face


def test_other_formats_go_through_savefig(tmp_path):
    save_figure(drawing(), tmp_path / "figure.svg", 100)
    assert (tmp_path / "figure.svg").read_text().lstrip().startswith("<?xml")
