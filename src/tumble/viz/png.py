"""PNG files of the run's figures, written faster than ``Figure.savefig`` with the same pixels.

:func:`save_png` draws a figure as ``savefig`` does (same dpi, face colour and renderer: it calls
``savefig`` itself, into raw RGBA bytes) and encodes the pixels with Pillow at zlib level
:data:`COMPRESS_LEVEL` instead of matplotlib's level 6, as RGB when every pixel is opaque (the
figures of a run are: their face is white). The image a viewer shows is the one ``savefig``
writes, pixel for pixel; the file is no larger (RGB needs three bytes a pixel, not four) and
takes about half the time to encode. The text chunk ``Software`` and the resolution (``pHYs``)
are those matplotlib writes.
"""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: zlib level of the PNG files (matplotlib's savefig uses Pillow's default, 6)
COMPRESS_LEVEL = 3


def figure_pixels(figure: Figure, dpi: float) -> np.ndarray:
    """The RGBA pixels (rows from the top, uint8, shape (height, width, 4)) that
    ``figure.savefig(..., dpi=dpi)`` writes to a PNG file."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = figure.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        canvas = FigureCanvasAgg(figure)
    raw = io.BytesIO()
    figure.savefig(raw, format="rgba", dpi=dpi)  # the renderer's buffer as it is
    height, width = int(canvas.renderer.height), int(canvas.renderer.width)
    return np.frombuffer(raw.getbuffer(), dtype=np.uint8).reshape(height, width, 4)


def save_figure(figure: Figure, path: str | os.PathLike, dpi: float) -> None:
    """Write ``figure`` at ``dpi`` to ``path``: a ``.png`` file by :func:`save_png`, any other
    format by ``savefig``."""
    if str(path).lower().endswith(".png"):
        save_png(figure, path, dpi)
    else:
        figure.savefig(path, dpi=dpi)


def save_png(figure: Figure, path: str | os.PathLike, dpi: float) -> None:
    """Write ``figure`` at ``dpi`` to the PNG file ``path`` (module docstring)."""
    import matplotlib
    from PIL import Image, PngImagePlugin

    pixels = figure_pixels(figure, dpi)
    opaque = bool(np.all(pixels[:, :, 3] == 255))
    image = Image.fromarray(np.ascontiguousarray(pixels[:, :, :3]) if opaque else pixels)
    info = PngImagePlugin.PngInfo()
    info.add_text(
        "Software", f"Matplotlib version{matplotlib.__version__}, https://matplotlib.org/"
    )
    image.save(path, format="png", compress_level=COMPRESS_LEVEL, pnginfo=info, dpi=(dpi, dpi))
