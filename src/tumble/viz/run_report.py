"""``report.html`` of a rockfall run: one offline page a hazard engineer can send to a client.

:func:`write_run_report` writes, into the run folder, a page with, in this order:

1. the run's warnings (``summary["warnings"]``) in a box at the top, if there are any;
2. what was simulated (rocks, scheme, DEM grid and CRS) and the outcome of the rocks (stopped,
   left the DEM, reached t_max, failed) as percentages from :func:`percent`, which never shows
   0 % or 100 % unless that is exact;
3. hazard maps (:func:`map_figure`, written as ``figures/report_<raster>.png``) of reach
   probability, maximum and 95th percentile kinetic energy, maximum jump height and deposits,
   each with its description and unit from :data:`~tumble.rockfall.ensemble.rasters.RASTER_INFO`;
4. the statistics of ``summary.json``: per-rock maxima (mean, std, p50, p95, max, each with its
   unit and, where the summary gives one as ``<key>_ci = [low, high]``, its confidence interval
   beside it), the path statistics, and any list of records under ``barriers``, ``sources`` or
   ``classes`` as a table; every other entry of the summary in a table of further values, so
   nothing the run reports is lost;
5. the other figures of the run, the resolved configuration as a TOML-like block and the
   provenance record (version, commit, command, time, timings, packages).

The page needs no network and no script: CSS is inline and every image is embedded as PNG data
(the same files are in ``figures/`` for other documents), so ``report.html`` alone can be mailed.

Maps. The raster is drawn only where it is defined: NaN cells, and zero cells of the rasters where
zero means "no rock" (reach probability and the counts), are transparent. Below it lies a
multidirectional hillshade of the DEM: the mean of the Lambertian shadings
(:meth:`Terrain.hillshade`) lit from the azimuths 225, 270, 315 and 360 degrees at 45 degrees
above the horizon. A single light shades slopes whose aspect is perpendicular to it like flat
ground; four lights keep the relief of slopes facing any way. Shading 0 is drawn mid-grey, not
black, so that the colours over it keep their hue.

Vertical exaggeration (:func:`vertical_exaggeration`): ``1 / g95``, clipped to [0.5, 10], with
``g95`` the 95th percentile of the slope gradient ``|grad z|`` in the mapped window. It turns the
95th percentile slope into a 45 degree slope, whose shading under a sun 45 degrees high spans the
whole grey range (0 facing away from the sun, 1 facing it): the relief uses the grey range
whatever the site, only the steepest 5 % of the cells saturate. A gentle site (a run-out fan)
gets a larger factor so that its undulations read; the clip keeps near-flat grids from
amplifying noise and cliffs from being flattened to nothing. The factor is printed under the map.

Extent and furniture: the map is cropped to the cells the rocks reached and the release and
final points, plus a margin of 8 % of the larger side (at least 3 cells), the shorter side
widened to at least half the longer, within the DEM. A scale bar of a round length (1, 2 or 5
times a power of ten, about a fifth of the map width); a north arrow to true north (meridian
convergence from the CRS; grid north, and said so, without a CRS); axes Easting and Northing in
the CRS's linear unit, with full coordinates (no offset, no scientific notation); release points
as triangles (over 300 release cells: the outline of the release area).
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from matplotlib import colors
from matplotlib.figure import Figure
from matplotlib.patheffects import withStroke
from matplotlib.ticker import MaxNLocator, NullFormatter, ScalarFormatter
from mpl_toolkits.axes_grid1.anchored_artists import AnchoredSizeBar  # type: ignore[import-untyped]

from tumble.rockfall.ensemble.rasters import RASTER_INFO
from tumble.rockfall.ensemble.reduce import format_percent

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colorbar import Colorbar

    from tumble.rockfall.terrain import Terrain

#: the maps of the report: raster name -> (title, colour map, part of the colour map used; the
#: palest colours are left out so that the smallest values still stand out from the grey relief)
MAPS: dict[str, tuple[str, str, float]] = {
    "reach_probability": ("Reach probability", "viridis", 0.0),
    "kinetic_energy_max": ("Kinetic energy, maximum", "YlOrRd", 0.2),
    "kinetic_energy_p95": ("Kinetic energy, 95th percentile", "YlOrRd", 0.2),
    "jump_height_max": ("Jump height, maximum", "YlGnBu", 0.25),
    "deposit_count": ("Deposits", "RdPu", 0.35),
}

#: rasters whose zero means that no rock was there (drawn transparent, like NaN)
ZERO_IS_EMPTY = frozenset(
    {"reach_probability", *(name for name, info in RASTER_INFO.items() if info.count)}
)

#: the per-rock statistics of ``summary.json``: (label, unit, path of keys in the summary)
STATISTICS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("kinetic energy (translation + rotation)", "kJ", ("kinetic_energy_kJ", "rock_max")),
    ("velocity of the centre of mass", "m/s", ("velocity_ms", "rock_max")),
    ("rotational velocity", "rev/s", ("rotational_velocity_rps", "rock_max")),
    ("jump height of the centre of mass", "m", ("jump_height_m", "rock_max")),
    ("run-out (horizontal, release to final point)", "m", ("runout_m",)),
    ("lateral spread (offset across the main direction)", "m", ("lateral_spread_m",)),
)

#: outcome of the rocks: key of ``summary["fractions"]`` -> label
OUTCOMES = {
    "stopped": "stopped on the DEM",
    "left_domain": "left the DEM",
    "timed_out": "still moving at t_max",
    "failed": "numerical failure",
}

#: records rendered as their own tables: summary key -> heading
RECORD_TABLES = {"barriers": "Barriers", "sources": "Release sources", "classes": "Rock classes"}

#: azimuths (degrees clockwise from north) and altitude of the multidirectional hillshade
HILLSHADE_AZIMUTHS = (225.0, 270.0, 315.0, 360.0)
HILLSHADE_ALTITUDE = 45.0
#: bounds of the vertical exaggeration of the hillshade
EXAGGERATION_RANGE = (0.5, 10.0)

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
  color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h3 { margin-top: 1.5em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
th { background: #f2f2f2; } td.text { text-align: left; }
figure { margin: 1.5em 0; } img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; max-width: 60em; }
.note, .ci { color: #555; font-size: 0.92em; } .ci { white-space: nowrap; }
.warnings { border: 2px solid #b34700; background: #fff3e6; padding: 0.6em 1.2em;
  margin: 1em 0; border-radius: 4px; }
.warnings h2 { margin-top: 0.2em; border: none; color: #b34700; font-size: 1.2em; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 0.8em; overflow-x: auto;
  font-size: 0.88em; }
@media print { figure, table, .warnings { page-break-inside: avoid; } }
"""


class MapFigure(NamedTuple):
    """A map of :func:`map_figure`: the figure, its map axes and its colour bar."""

    figure: Figure
    ax: Axes
    colorbar: Colorbar


class Window(NamedTuple):
    """Index ranges ``rows``, ``cols`` (half-open) of the mapped part of the DEM."""

    j0: int
    j1: int
    i0: int
    i1: int


# --- numbers ---------------------------------------------------------------------------------


#: percentages as every output of a run writes them (never 0 % or 100 % unless exact)
percent = format_percent


def number(value: Any) -> str:
    """A value of the summary as text: 4 significant digits, full digits from 10 000 on (no
    exponent for coordinates or counts), ``n/a`` for None and NaN."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if not math.isfinite(value):
            return "n/a" if math.isnan(value) else str(value)
        if abs(value) >= 1e4:
            return f"{value:.0f}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(number(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return json.dumps(value, default=str)
    return str(value)


def _with_interval(value: Any, interval: Any) -> str:
    """HTML of a value and, if ``interval`` is a [low, high] pair, the interval beside it."""
    text = html.escape(number(value))
    if isinstance(interval, (list, tuple)) and len(interval) == 2:
        low, high = (html.escape(number(v)) for v in interval)
        text += f' <span class="ci">[{low}, {high}]</span>'
    return text


def round_length(length: float) -> float:
    """The largest of 1, 2 or 5 times a power of ten not above ``length`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(length))
    for step in (5.0, 2.0, 1.0):
        if step * power <= length:
            return step * power
    return power


# --- maps ------------------------------------------------------------------------------------


def crs_unit(crs: Any) -> str:
    """Short name of the linear unit of a CRS (``linear_units`` of a rasterio CRS): ``m``,
    ``ft``, ``US ft``; ``m`` without a CRS or a unit."""
    units = getattr(crs, "linear_units", None)
    if not units or units == "unknown":
        return "m"
    short = {"metre": "m", "meter": "m", "foot": "ft", "us survey foot": "US ft"}
    return short.get(str(units).lower(), str(units))


def true_north_deg(terrain: Terrain, x: float, y: float) -> float | None:
    """Angle of true north from grid north at (x, y), degrees clockwise (the meridian
    convergence); None without a projected CRS or if the transformation fails."""
    crs = terrain.crs
    if crs is None or not getattr(crs, "is_projected", False):
        return None
    try:
        from rasterio.warp import transform

        lon, lat = transform(crs, "EPSG:4326", [x], [y])
        north_x, north_y = transform("EPSG:4326", crs, lon, [min(lat[0] + 1e-3, 89.999)])
    except Exception:
        return None
    angle = math.degrees(math.atan2(north_x[0] - x, north_y[0] - y))
    return angle if math.isfinite(angle) else None


def map_window(
    terrain: Terrain,
    rasters: Mapping[str, np.ndarray],
    rocks: Mapping[str, np.ndarray],
    margin: float = 0.08,
) -> Window:
    """The DEM part the rocks reached (cells with a value in any raster, release and final
    points) plus ``margin`` times its larger side (at least 3 cells), its shorter side widened
    to at least half the longer, within the DEM; the whole DEM if nothing was reached."""
    ny, nx = terrain.heights.shape
    reached = np.zeros((ny, nx), dtype=bool)
    for name, values in rasters.items():
        grid = np.asarray(values, dtype=np.float64)
        if grid.shape != (ny, nx):
            continue
        defined = np.isfinite(grid)
        if name in ZERO_IS_EMPTY:
            defined &= grid > 0
        reached |= defined
    rows, cols = np.nonzero(reached)
    i = [cols.astype(np.float64)]
    j = [rows.astype(np.float64)]
    for x_key, y_key in (("release_x", "release_y"), ("x", "y")):
        if x_key in rocks and y_key in rocks:
            x = np.asarray(rocks[x_key], dtype=np.float64)
            y = np.asarray(rocks[y_key], dtype=np.float64)
            ok = np.isfinite(x) & np.isfinite(y)
            i.append((x[ok] - terrain.x0) / terrain.dx)
            j.append((y[ok] - terrain.y0) / terrain.dy)
    ii, jj = np.concatenate(i), np.concatenate(j)
    inside = (ii > -0.5) & (ii < nx - 0.5) & (jj > -0.5) & (jj < ny - 0.5)
    ii, jj = ii[inside], jj[inside]
    if ii.size == 0:
        return Window(0, ny, 0, nx)
    # sides in metres, the shorter one widened to at least half the longer (a readable map)
    side_x = (ii.max() - ii.min()) * terrain.dx
    side_y = (jj.max() - jj.min()) * terrain.dy
    longer = max(side_x, side_y)
    pad_x = margin * longer + 0.5 * max(0.0, 0.5 * longer - side_x)
    pad_y = margin * longer + 0.5 * max(0.0, 0.5 * longer - side_y)
    pad_i = max(3, math.ceil(pad_x / terrain.dx))
    pad_j = max(3, math.ceil(pad_y / terrain.dy))
    return Window(
        max(0, math.floor(jj.min()) - pad_j),
        min(ny, math.ceil(jj.max()) + pad_j + 1),
        max(0, math.floor(ii.min()) - pad_i),
        min(nx, math.ceil(ii.max()) + pad_i + 1),
    )


def _window_extent(terrain: Terrain, window: Window) -> tuple[float, float, float, float]:
    """Pixel-edge extent (left, right, bottom, top) of a window, for ``imshow``."""
    return (
        terrain.x0 + (window.i0 - 0.5) * terrain.dx,
        terrain.x0 + (window.i1 - 0.5) * terrain.dx,
        terrain.y0 + (window.j0 - 0.5) * terrain.dy,
        terrain.y0 + (window.j1 - 0.5) * terrain.dy,
    )


def _sub_terrain(terrain: Terrain, window: Window) -> Terrain:
    from tumble.rockfall.terrain import Terrain

    heights = terrain.heights[window.j0 : window.j1, window.i0 : window.i1]
    if min(heights.shape) < 2:  # a one-cell window: shade the whole DEM's grid there
        return terrain
    return Terrain.from_array(
        heights,
        x0=terrain.x0 + window.i0 * terrain.dx,
        y0=terrain.y0 + window.j0 * terrain.dy,
        dx=terrain.dx,
        dy=terrain.dy,
    )


def vertical_exaggeration(terrain: Terrain) -> float:
    """``1 / g95`` clipped to :data:`EXAGGERATION_RANGE`, ``g95`` the 95th percentile of the
    slope gradient ``|grad z|`` of the DEM (module docstring: it makes the 95th percentile slope
    a 45 degree one, whose shading spans the grey range)."""
    dz_dy, dz_dx = np.gradient(terrain.heights, terrain.dy, terrain.dx)
    g95 = float(np.percentile(np.hypot(dz_dx, dz_dy), 95))
    low, high = EXAGGERATION_RANGE
    return high if g95 <= 1.0 / high else float(np.clip(1.0 / g95, low, high))


def multidirectional_hillshade(terrain: Terrain, exaggeration: float) -> np.ndarray:
    """Mean of the hillshades lit from :data:`HILLSHADE_AZIMUTHS` at
    :data:`HILLSHADE_ALTITUDE`, heights scaled by ``exaggeration``; in [0, 1], layout of
    ``terrain.heights``."""
    shades = [
        terrain.hillshade(azimuth, HILLSHADE_ALTITUDE, z_factor=exaggeration)
        for azimuth in HILLSHADE_AZIMUTHS
    ]
    return np.mean(shades, axis=0)


def _norm(name: str, values: np.ndarray) -> colors.Normalize:
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return colors.Normalize(0.0, 1.0)
    low, high = float(defined.min()), float(defined.max())
    if name == "reach_probability" and low > 0 and high >= 10 * low:
        return colors.LogNorm(low, high)
    if name in RASTER_INFO and RASTER_INFO[name].count:  # integers: one colour per count
        return colors.Normalize(0.5, max(high, 1.0) + 0.5)
    if high <= max(low, 0.0):
        return colors.Normalize(min(low, 0.0), high + 1.0)
    return colors.Normalize(min(low, 0.0), high)


def _colormap(name: str) -> colors.Colormap:
    import matplotlib

    _, cmap, start = MAPS.get(name, ("", "viridis", 0.0))
    full = matplotlib.colormaps[cmap]
    return colors.ListedColormap(full(np.linspace(start, 1.0, 256)), name=f"{cmap}_from_{start}")


def _title(name: str) -> str:
    return MAPS[name][0] if name in MAPS else name.replace("_", " ")


def _colorbar_label(name: str) -> str:
    info = RASTER_INFO.get(name)
    title = _title(name)
    if info is None:
        return title
    unit = "fraction of the rocks, 1" if info.unit == "1" else info.unit
    return f"{title} ({unit})"


def _north_arrow(ax: Axes, angle_deg: float | None) -> None:
    theta = math.radians(angle_deg or 0.0)
    head = (0.94, 0.9)
    outline = [withStroke(linewidth=3, foreground="white")]
    ax.annotate(
        "",
        xy=head,
        xycoords="axes fraction",
        xytext=(-28 * math.sin(theta), -28 * math.cos(theta)),
        textcoords="offset points",
        arrowprops={"arrowstyle": "-|>,head_width=0.35,head_length=0.7", "lw": 2, "color": "k"},
    )
    ax.annotate(
        "N",
        xy=head,
        xycoords="axes fraction",
        xytext=(7 * math.sin(theta), 4 + 7 * math.cos(theta)),
        textcoords="offset points",
        ha="center",
        va="bottom",
        fontsize=12,
        fontweight="bold",
        path_effects=outline,
    )


class Relief(NamedTuple):
    """The shaded relief of a map window: ``shade`` (rows of the window, in [0, 1]) and the
    vertical ``exaggeration`` it was computed with."""

    shade: np.ndarray
    exaggeration: float


def relief(terrain: Terrain, window: Window) -> Relief:
    """The multidirectional hillshade of ``window`` with the exaggeration from its relief."""
    sub = _sub_terrain(terrain, window)
    exaggeration = vertical_exaggeration(sub)
    shade = multidirectional_hillshade(sub, exaggeration)
    if sub is terrain:
        shade = shade[window.j0 : window.j1, window.i0 : window.i1]
    return Relief(shade, exaggeration)


#: release cells up to which each is marked; above, the outline of the release area is drawn
MAX_RELEASE_MARKERS = 300


def _release(ax: Axes, terrain: Terrain, window: Window, rocks: Mapping[str, np.ndarray]) -> None:
    """Release points as triangles at the centres of their cells, or, for more than
    :data:`MAX_RELEASE_MARKERS` cells, the outline of the cells with the gaps between them
    (up to their mean spacing) closed by :func:`tumble.viz.rockfall.envelope_mask`."""
    if "release_x" not in rocks or "release_y" not in rocks:
        return
    x = np.asarray(rocks["release_x"], dtype=np.float64)
    y = np.asarray(rocks["release_y"], dtype=np.float64)
    i = np.floor((x - terrain.x0) / terrain.dx + 0.5) - window.i0
    j = np.floor((y - terrain.y0) / terrain.dy + 0.5) - window.j0
    ny, nx = window.j1 - window.j0, window.i1 - window.i0
    ok = np.isfinite(i) & np.isfinite(j) & (i >= 0) & (j >= 0) & (i < nx) & (j < ny)
    cells = np.unique(np.stack([j[ok], i[ok]], axis=1).astype(np.int64), axis=0)
    if cells.size == 0:
        return
    cx = terrain.x0 + (cells[:, 1] + window.i0) * terrain.dx
    cy = terrain.y0 + (cells[:, 0] + window.j0) * terrain.dy
    if len(cells) <= MAX_RELEASE_MARKERS:
        ax.plot(
            cx,
            cy,
            linestyle="none",
            marker="^",
            markersize=5,
            markerfacecolor="white",
            markeredgecolor="black",
            markeredgewidth=0.6,
            label="release points",
        )
    else:
        from tumble.viz.rockfall import envelope_mask

        (j0, i0), (j1, i1) = cells.min(axis=0), cells.max(axis=0)
        spacing = math.sqrt((j1 - j0 + 1) * (i1 - i0 + 1) / len(cells))
        radius = max(2, math.ceil(spacing))  # the mean distance between release cells
        pad = radius + 2
        cell_area = np.zeros((j1 - j0 + 1 + 2 * pad, i1 - i0 + 1 + 2 * pad))
        cell_area[cells[:, 0] - j0 + pad, cells[:, 1] - i0 + pad] = 1.0
        area = envelope_mask(cell_area, radius).astype(np.float64)
        gx = terrain.x0 + (np.arange(cell_area.shape[1]) + i0 - pad + window.i0) * terrain.dx
        gy = terrain.y0 + (np.arange(cell_area.shape[0]) + j0 - pad + window.j0) * terrain.dy
        halo = [withStroke(linewidth=3, foreground="white")]
        contour = ax.contour(gx, gy, area, levels=[0.5], colors="black", linewidths=1.2)
        contour.set(path_effects=halo)
        ax.plot([], [], color="black", lw=1.2, path_effects=halo, label="release area")
    ax.legend(loc="lower right", fontsize=8, framealpha=0.85)


def map_figure(
    terrain: Terrain,
    name: str,
    values: np.ndarray,
    window: Window,
    *,
    rocks: Mapping[str, np.ndarray] | None = None,
    n_rocks: int | None = None,
    shaded: Relief | None = None,
) -> MapFigure:
    """A map of raster ``name`` (values (ny, nx) on the DEM grid) over the multidirectional
    hillshade of ``window`` (``shaded``, from :func:`relief` if not given), with colour bar,
    scale bar, north arrow and the release points of ``rocks`` (``release_x``,
    ``release_y``), as the module docstring describes."""
    unit = crs_unit(terrain.crs)
    shaded = relief(terrain, window) if shaded is None else shaded
    grid = np.asarray(values, dtype=np.float64)[window.j0 : window.j1, window.i0 : window.i1]
    empty = ~np.isfinite(grid)
    if name in ZERO_IS_EMPTY:
        empty |= grid <= 0
    shown = np.ma.masked_array(grid, mask=empty)
    extent = _window_extent(terrain, window)
    width, height = extent[1] - extent[0], extent[3] - extent[2]
    # the map 6.6 in wide and at most 7.8 in high, plus room for the labels and colour bar
    map_width = min(6.6, 7.8 * width / height)
    fig_height = max(3.8, map_width * height / width + 1.2)
    fig = Figure(figsize=(map_width + 1.8, fig_height), layout="constrained")
    ax = fig.add_subplot()
    # shading 0 drawn mid-grey, not black, so that the colours over it keep their hue
    ax.imshow(
        shaded.shade,
        origin="lower",
        extent=extent,
        cmap="gray",
        vmin=-0.5,
        vmax=1.0,
        interpolation="nearest",
    )
    title = _title(name)
    image = ax.imshow(
        shown,
        origin="lower",
        extent=extent,
        cmap=_colormap(name),
        norm=_norm(name, np.where(empty, np.nan, grid)),
        alpha=0.8,
        interpolation="nearest",
    )
    colorbar = fig.colorbar(image, ax=ax, shrink=0.85, pad=0.02)
    colorbar.set_label(_colorbar_label(name))
    norm = image.norm
    if isinstance(norm, colors.LogNorm) and norm.vmin is not None and norm.vmax is not None:
        low, high = norm.vmin, norm.vmax
        decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
        ticks = [m * 10.0**k for k in decades for m in (1, 2, 5) if low <= m * 10.0**k <= high]
        colorbar.set_ticks(ticks, labels=[f"{t:g}" for t in ticks])
        colorbar.ax.yaxis.set_minor_formatter(NullFormatter())
    elif name in RASTER_INFO and RASTER_INFO[name].count:
        colorbar.locator = MaxNLocator(integer=True)
        colorbar.update_ticks()
    if empty.all():
        ax.text(
            0.5, 0.5, "no values", transform=ax.transAxes, ha="center", va="center", fontsize=14
        )
    if rocks is not None:
        _release(ax, terrain, window, rocks)
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_aspect("equal")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
        formatter = ScalarFormatter(useOffset=False)
        formatter.set_scientific(False)
        axis.set_major_formatter(formatter)
    ax.ticklabel_format(useOffset=False, style="plain")
    ax.tick_params(labelsize=8)
    ax.set_xlabel(f"Easting ({unit})")
    ax.set_ylabel(f"Northing ({unit})")
    length = round_length(width / 5.0)
    ax.add_artist(
        AnchoredSizeBar(
            ax.transData,
            length,
            f"{number(length)} {unit}",
            loc="lower left",
            pad=0.4,
            borderpad=0.6,
            sep=4,
            size_vertical=height / 150.0,
            frameon=True,
        )
    )
    north = true_north_deg(terrain, 0.5 * (extent[0] + extent[1]), 0.5 * (extent[2] + extent[3]))
    _north_arrow(ax, north)
    count = f", {n_rocks} rock{'s' if n_rocks != 1 else ''}" if n_rocks else ""
    ax.set_title(f"{title}{count}", fontsize=11)
    fig.supxlabel(
        f"Relief: hillshade lit from 4 directions, vertical exaggeration "
        f"{shaded.exaggeration:.2g}. Arrow: "
        + ("true north." if north is not None else "grid north (the DEM has no CRS)."),
        fontsize=7,
        color="#555",
        x=0.99,
        ha="right",
    )
    return MapFigure(fig, ax, colorbar)


# --- HTML pieces -----------------------------------------------------------------------------


def _data_uri(path: Path) -> str:
    mime = {
        ".png": "image/png",
        ".jpg": "image/jpeg",
        ".jpeg": "image/jpeg",
        ".gif": "image/gif",
        ".svg": "image/svg+xml",
        ".webp": "image/webp",
    }.get(path.suffix.lower())
    if mime is None:
        raise ValueError(f"{path}: not an image the report can embed (png, jpg, gif, svg, webp)")
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _figure(path: Path, relative: str, caption: str) -> str:
    return (
        f'<figure><img alt="{html.escape(caption)}" src="{_data_uri(path)}">'
        f"<figcaption>{html.escape(caption)} <span class='note'>File: "
        f"<code>{html.escape(relative)}</code>.</span></figcaption></figure>"
    )


def _cell(value: Any, interval: Any = None, text: bool = False) -> str:
    css = ' class="text"' if text else ""
    return f"<td{css}>{_with_interval(value, interval)}</td>"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table from escaped header texts and rows of ready ``<td>`` cells."""
    header = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"


def _flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def _value_cell(key: str, value: Any, interval: Any = None) -> str:
    if (
        "fraction" in key.rsplit(".", 1)[-1]
        and isinstance(value, (float, int))
        and not isinstance(value, bool)
        and 0.0 <= value <= 1.0
    ):
        return f"<td>{html.escape(percent(value))}</td>"
    return _cell(value, interval, text=isinstance(value, str))


def records_table(records: Sequence[Mapping[str, Any]]) -> str:
    """Any list of records (dicts, nested dicts flattened to dotted column names) as a table;
    a column ``<key>_ci`` ([low, high]) is shown beside ``<key>``, not as a column of its own."""
    flat = [_flatten(r) for r in records]
    columns: list[str] = []
    for row in flat:
        columns += [k for k in row if k not in columns]
    shown = [c for c in columns if not (c.endswith("_ci") and c[:-3] in columns)]
    rows = [[_value_cell(c, row.get(c), row.get(f"{c}_ci")) for c in shown] for row in flat]
    return _table([html.escape(c) for c in shown], rows)


def values_table(values: Mapping[str, Any]) -> str:
    """Scalars and nested dicts (dotted names) as a two-column table; intervals beside values."""
    flat = _flatten(values)
    rows = [
        [_cell(key, text=True), _value_cell(key, value, flat.get(f"{key}_ci"))]
        for key, value in flat.items()
        if not (key.endswith("_ci") and key[:-3] in flat)
    ]
    return _table(["quantity", "value"], rows)


def _warnings(summary: Mapping[str, Any]) -> str:
    warnings = [str(w) for w in summary.get("warnings") or []]
    if not warnings:
        return ""
    items = "".join(f"<li>{html.escape(w)}</li>" for w in warnings)
    title = "Warning" if len(warnings) == 1 else f"{len(warnings)} warnings"
    return (
        f'<div class="warnings" role="alert"><h2>{title}: read before using the results</h2>'
        f"<ul>{items}</ul></div>"
    )


def _statistics(summary: Mapping[str, Any]) -> str:
    entries = []
    for label, unit, keys in STATISTICS:
        stats: Any = summary
        for key in keys:
            stats = stats.get(key) if isinstance(stats, Mapping) else None
        if isinstance(stats, Mapping):
            entries.append((label, unit, stats))
    if not entries:
        return "<p class='note'>The summary holds no per-rock statistics.</p>"
    columns: list[str] = []
    for _, _, stats in entries:
        columns += [
            k for k in stats if not k.endswith("_ci") and k != "samples" and k not in columns
        ]
    names = {"mean": "mean", "std": "std", "p50": "median (p50)", "p95": "p95", "max": "max"}
    rows = [
        [_cell(label, text=True), _cell(unit, text=True)]
        + [
            _cell(stats[c], stats.get(f"{c}_ci")) if c in stats else "<td>&ndash;</td>"
            for c in columns
        ]
        for label, unit, stats in entries
    ]
    head = ["per rock", "unit", *(html.escape(names.get(c, c)) for c in columns)]
    return _table(head, rows)


def _path_statistics(summary: Mapping[str, Any]) -> str:
    rows = []
    for label, unit, keys in STATISTICS:
        path = summary.get(keys[0], {})
        path = path.get("path") if isinstance(path, Mapping) else None
        if isinstance(path, Mapping):
            rows.append(
                [
                    _cell(label, text=True),
                    _cell(unit, text=True),
                    _cell(path.get("mean"), path.get("mean_ci")),
                    _cell(path.get("std"), path.get("std_ci")),
                    _cell(path.get("samples")),
                ]
            )
    if not rows:
        return ""
    return (
        "<h3>Along the paths</h3><p class='note'>Mean and standard deviation over the saved "
        "samples of the moving rocks (the jump height over the samples in flight).</p>"
        + _table(["quantity", "unit", "mean", "std", "samples"], rows)
    )


def _outcomes(summary: Mapping[str, Any]) -> str:
    fractions = summary.get("fractions")
    if not isinstance(fractions, Mapping):
        return ""
    n = summary.get("n_rocks")
    rows = []
    for key, value in fractions.items():
        known = isinstance(n, int) and isinstance(value, (int, float))
        count = str(round(value * n)) if known else "n/a"
        rows.append(
            [
                _cell(OUTCOMES.get(key, key.replace("_", " ")), text=True),
                f"<td>{html.escape(percent(value))}</td>",
                f"<td>{count}</td>",
            ]
        )
    return _table(["outcome of the rocks", "share", "rocks"], rows)


#: keys of the summary shown in the run table, with labels and units
RUN_KEYS = {
    "n_rocks": ("rocks simulated", ""),
    "scheme": ("rotation scheme", ""),
    "seed": ("random seed", ""),
    "dt": ("time step", "s"),
    "t_max": ("maximum simulated time per rock", "s"),
    "sample_every": ("path samples every", "steps"),
}


def _run_table(summary: Mapping[str, Any], terrain: Terrain) -> str:
    rows = [
        [_cell(label, text=True), _cell(summary[key], text=True), _cell(unit, text=True)]
        for key, (label, unit) in RUN_KEYS.items()
        if key in summary
    ]
    ny, nx = terrain.heights.shape
    unit = crs_unit(terrain.crs)
    crs = terrain.crs.to_string() if terrain.crs is not None else "none given"
    b = terrain.bounds
    rows += [
        [
            _cell("DEM grid", text=True),
            _cell(f"{nx} x {ny} samples, {number(terrain.dx)} x {number(terrain.dy)}", text=True),
            _cell(unit, text=True),
        ],
        [
            _cell("DEM extent (sample centres)", text=True),
            _cell(
                f"E {number(b.x_min)} to {number(b.x_max)}, N {number(b.y_min)} to "
                f"{number(b.y_max)}",
                text=True,
            ),
            _cell(unit, text=True),
        ],
        [_cell("coordinate reference system", text=True), _cell(crs, text=True), "<td></td>"],
    ]
    return _table(["setting", "value", "unit"], rows)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return repr(value.item() if isinstance(value, np.generic) else value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value))


def toml_text(config: Mapping[str, Any], section: str = "") -> str:
    """A configuration as TOML-like text: keys, then ``[section]`` tables; a None value (not
    set: the default applies) as a comment."""
    lines = []
    for key, value in config.items():
        if isinstance(value, Mapping):
            continue
        if value is None:
            lines.append(f"# {key}: not set, the default applies")
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in config.items():
        if isinstance(value, Mapping):
            name = f"{section}.{key}" if section else str(key)
            lines.append(f"\n[{name}]")
            lines.append(toml_text(value, name))
    return "\n".join(line for line in lines if line)


def _provenance(provenance: Mapping[str, Any]) -> str:
    command = provenance.get("command")
    if isinstance(command, (list, tuple)):
        command = shlex.join(str(c) for c in command)
    labels = {
        "tumble_version": "tumble version",
        "git": "source commit",
        "created_utc": "created (UTC)",
        "seed": "seed",
        "python": "Python",
        "platform": "platform",
        "cpu_count": "CPUs",
    }
    rows = [[_cell("command", text=True), _cell(command, text=True)]] if command else []
    rows += [
        [_cell(label, text=True), _cell(provenance[key], text=True)]
        for key, label in labels.items()
        if key in provenance
    ]
    record = provenance.get("config")
    if isinstance(record, Mapping):
        rows += [
            [_cell(f"config: {key}", text=True), _cell(value, text=True)]
            for key, value in record.items()
            if key != "resolved" and not isinstance(value, Mapping)
        ]
    used = {"command", "config", "timings_s", "packages", *labels}
    rows += [
        [_cell(key, text=True), _cell(value, text=True)]
        for key, value in provenance.items()
        if key not in used
    ]
    parts = [_table(["record", "value"], rows)]
    timings = provenance.get("timings_s")
    if isinstance(timings, Mapping) and timings:
        parts.append(
            _table(
                ["timing", "seconds"],
                [[_cell(k, text=True), _cell(v)] for k, v in timings.items()],
            )
        )
    packages = provenance.get("packages")
    if isinstance(packages, Mapping) and packages:
        parts.append(
            _table(
                ["package", "version"],
                [[_cell(k, text=True), _cell(v, text=True)] for k, v in packages.items()],
            )
        )
    return "".join(parts)


# --- the page --------------------------------------------------------------------------------


def _relative(directory: Path, figure: str | os.PathLike) -> tuple[Path, str]:
    path = Path(figure)
    full = path if path.is_absolute() else directory / path
    try:
        relative = full.resolve().relative_to(directory.resolve())
    except ValueError:
        raise ValueError(f"figure {figure} is not inside the run folder {directory}") from None
    if not full.is_file():
        raise ValueError(f"figure {figure} does not exist in the run folder {directory}")
    return full, relative.as_posix()


def barrier_records(barriers: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """One flat row per barrier of ``summary["barriers"]``: crossings, the percentiles a fence
    is designed for with their intervals, and the design values with their verification."""

    def cell(stats: Mapping[str, Any] | None, key: str, digits: int) -> str:
        if not stats or stats.get(key) is None:
            return "n/a"
        text = f"{stats[key]:.{digits}f}"
        ci = stats.get(key + "_ci")
        return text + (f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "")

    rows = []
    for b in barriers:
        design = b.get("design") or {}
        verdict = []
        for key, what in (("energy_ok", "energy"), ("height_ok", "height")):
            if design.get(key) is not None:
                verdict.append(f"{what} {'ok' if design[key] else 'NOT ok'}")
        rows.append(
            {
                "barrier": str(b.get("name")),
                "kind": str(b.get("kind")),
                "rocks crossing": (
                    f"{b.get('rocks_crossing')} ({percent(b.get('fraction_crossing'))})"
                ),
                "energy p95 (kJ)": cell(b.get("kinetic_energy_kJ"), "p95", 0),
                "energy p99 (kJ)": cell(b.get("kinetic_energy_kJ"), "p99", 0),
                "velocity p95 (m/s)": cell(b.get("velocity_ms"), "p95", 1),
                "passing height p95 (m)": cell(b.get("passing_height_m"), "p95", 2),
                "top height p95 (m)": cell(b.get("top_height_m"), "p95", 2),
                "E_d (kJ)": number(design.get("E_d_kJ")),
                "h_d (m)": number(design.get("h_d_m")),
                "required height (m)": number(design.get("required_height_m")),
                "verification": ", ".join(verdict) or "-",
            }
        )
    return rows


def write_run_report(
    directory: Path,
    *,
    summary: dict,
    terrain: Terrain,
    rasters: Mapping[str, np.ndarray],
    rocks: Mapping[str, np.ndarray],
    config: Mapping[str, Any],
    provenance: Mapping[str, Any],
    figures: Sequence[str | os.PathLike] = (),
    draw_maps: bool = True,
) -> Path:
    """Write ``directory / "report.html"`` and its maps ``directory / "figures" /
    "report_<raster>.png"`` (module docstring) and return the page's path.

    ``summary``: the content of ``summary.json``; ``terrain``: the run's DEM; ``rasters`` and
    ``rocks``: the hazard rasters and the per-rock table of the ensemble result; ``config``: the
    resolved configuration (``RockfallConfig.model_dump()``); ``provenance``: the record of
    :func:`tumble.io.provenance.provenance`; ``figures``: other images of the run inside
    ``directory`` (paths relative to it, or absolute), shown at the end. ValueError for a figure
    outside ``directory`` or missing. ``draw_maps=False`` leaves the maps out (a run without
    figures); the page says so.
    """
    directory = Path(directory)
    others = [_relative(directory, f) for f in figures]
    figure_dir = directory / "figures"
    figure_dir.mkdir(parents=True, exist_ok=True)
    n_rocks = summary.get("n_rocks")
    maps = []
    names = [name for name in MAPS if name in rasters] if draw_maps else []
    window = map_window(terrain, rasters, rocks)
    shaded = relief(terrain, window) if names else None
    for name in names:
        if name not in rasters:
            continue
        drawn = map_figure(
            terrain,
            name,
            rasters[name],
            window,
            rocks=rocks,
            n_rocks=n_rocks if isinstance(n_rocks, int) else None,
            shaded=shaded,
        )
        path = figure_dir / f"report_{name}.png"
        drawn.figure.savefig(path, dpi=120)
        info = RASTER_INFO.get(name)
        caption = f"{_colorbar_label(name)}: {info.description}." if info else name
        maps.append(_figure(path, path.relative_to(directory).as_posix(), caption))
    missing = [MAPS[name][0].lower() for name in MAPS if name not in rasters]
    if not draw_maps:
        maps.append(
            "<p class='note'>The maps were not drawn (a run without figures); the hazard "
            "rasters are in the folder.</p>"
        )

    scheme = summary.get("scheme", "?")
    title = f"Rockfall simulation: {number(n_rocks)} rocks, {scheme} scheme"
    created = str(provenance.get("created_utc") or "").replace("T", " ").removesuffix("+00:00")
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        _warnings(summary),
        f"<h1>{html.escape(title)}</h1>",
        "<p class='note'>Computed with tumble "
        + html.escape(str(provenance.get("tumble_version", "")))
        + (f" on {html.escape(created)} UTC" if created else "")
        + ". The hazard rasters (GeoTIFF, with the DEM's grid and coordinate system), the "
        "per-rock table and the statistics are in the same run folder.</p>",
        "<h2>The run</h2>",
        _run_table(summary, terrain),
        _outcomes(summary),
        "<h2>Hazard maps</h2>",
        "<p class='note'>A cell is coloured if the centre of mass of at least one rock passed "
        "it (jump height: flew over it; deposits: stopped in it), and its value is taken over "
        "those rocks; elsewhere the map shows the shaded relief only. White triangles: release "
        "points (a black outline: the release area). Coordinates in the DEM's coordinate "
        "reference system.</p>",
        *maps,
    ]
    if missing:
        parts.append(f"<p class='note'>Not in this run: {html.escape(', '.join(missing))}.</p>")
    has_ci = any(key.endswith("_ci") for key in _flatten(summary))
    ci_level = summary.get("ci_level")
    level = f"{percent(ci_level)} " if isinstance(ci_level, float) else ""
    parts += [
        "<h2>Statistics</h2>",
        "<p class='note'>Per rock: each rock's largest value along its path (run-out and lateral "
        "spread: at its final point), then the mean, standard deviation, median, 95th "
        f"percentile and maximum over the {number(n_rocks)} rocks. "
        + (
            f"Values in brackets are {level}confidence intervals [low, high] given by the run."
            if has_ci
            else "The run gives no confidence intervals: percentiles of a finite number of "
            "rocks carry a sampling error that is not shown here."
        )
        + "</p>",
        _statistics(summary),
        _path_statistics(summary),
    ]
    for key, heading in RECORD_TABLES.items():
        records = summary.get(key)
        if key == "barriers" and isinstance(records, list) and records:
            records = barrier_records(records)
        if isinstance(records, list) and records:
            parts += [
                f"<h3>{html.escape(heading)}</h3>",
                records_table([r if isinstance(r, Mapping) else {key: r} for r in records]),
            ]
    used = {
        "warnings",
        "fractions",
        *RUN_KEYS,
        *RECORD_TABLES,
        *(keys[0] for _, _, keys in STATISTICS),
    }
    further = {k: v for k, v in summary.items() if k not in used}
    if further:
        parts += ["<h3>Further values of the run</h3>", values_table(further)]
    if others:
        parts.append("<h2>Other figures of the run</h2>")
        parts += [_figure(path, relative, relative) for path, relative in others]
    parts += [
        "<h2>Resolved configuration</h2>",
        "<p class='note'>Every setting of the run, defaults included, as TOML.</p>",
        f"<pre>{html.escape(toml_text(config))}</pre>",
        "<h2>Provenance</h2>",
        _provenance(provenance),
        "</body></html>",
    ]
    page = directory / "report.html"
    partial = page.with_name(f".{page.name}.partial")
    partial.write_text("\n".join(p for p in parts if p), encoding="utf-8")
    partial.replace(page)
    return page
