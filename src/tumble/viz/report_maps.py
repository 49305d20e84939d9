"""The maps of a run's report (:mod:`tumble.viz.run_report`): hazard rasters over a
multidirectional hillshade with scale bar, north arrow, colour bar with units and
Easting/Northing without offsets."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from matplotlib import colors
from matplotlib.figure import Figure
from matplotlib.patheffects import withStroke
from matplotlib.ticker import MaxNLocator, NullFormatter, ScalarFormatter
from mpl_toolkits.axes_grid1.anchored_artists import AnchoredSizeBar  # type: ignore[import-untyped]

from tumble.rockfall.ensemble.rasters import RASTER_INFO, Rasters
from tumble.viz.grids import Window, block_max, decimation
from tumble.viz.map_overlays import (
    draw_barriers,
    draw_exits,
    draw_frame,
    draw_release_areas,
    draw_release_points,
)
from tumble.viz.relief import multidirectional_hillshade, vertical_exaggeration

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colorbar import Colorbar

    from tumble.rockfall.terrain import Terrain


from tumble.viz.report_html import crs_unit, number

#: the maps of the report: raster name -> (title, colour map, part of the colour map used; the
#: palest colours are left out so that the smallest values still stand out from the grey relief)
MAPS: dict[str, tuple[str, str, float]] = {
    "reach_probability": ("Reach probability", "viridis", 0.0),
    "kinetic_energy_max": ("Kinetic energy, maximum", "YlOrRd", 0.2),
    "kinetic_energy_p95": ("Kinetic energy, 95th percentile", "YlOrRd", 0.2),
    "jump_height_max": ("Jump height (vertical), maximum", "YlGnBu", 0.25),
    "jump_height_normal_max": ("Jump height normal to the slope, maximum", "YlGnBu", 0.25),
    "deposit_count": ("Deposits", "RdPu", 0.35),
}

#: maps drawn only when the run has them (hazard zones: release areas with frequencies)
OPTIONAL_MAPS: dict[str, tuple[str, str, float]] = {
    "hazard_zone": ("Hazard zone", "zones", 0.0),
    "forest_stems_per_ha": ("Forest, stems per hectare", "Greens", 0.0),
    "tree_impacts": ("Tree impacts", "Oranges", 0.0),
    "converged": ("Converged cells: both 95 % intervals within the target", "converged", 0.0),
    "energy_line_angle": ("Energy-line angle, smallest over the rocks", "viridis_r", 0.0),
    "source_count": ("Release areas whose rocks reach the cell", "PuBu", 0.3),
}
#: colours of the hazard zones 1 yellow, 2 blue, 3 red (:mod:`tumble.rockfall.hazard.zoning`)
ZONE_COLOURS = ("#f2d600", "#2166c4", "#d7191c")
#: colours of the converged map over the reached cells: 0 not converged, 1 converged (cells no
#: rock reached show the relief: :func:`converged_where_reached`)
CONVERGED_COLOURS = ("#e66101", "#1a9641")

#: maps of a comparison of two runs (B minus A): raster name -> (title, unit of the colour bar)
DELTA_MAPS: dict[str, tuple[str, str]] = {
    "delta_reach_probability": ("Change of reach probability, B - A", "fraction of the rocks, 1"),
    "delta_kinetic_energy_p95": ("Change of kinetic energy, 95th percentile, B - A", "kJ"),
    "delta_hazard_zone": ("Change of hazard zone, B - A", "zone steps"),
}
#: colours of the zone changes -3 (red to none) ... +3 (none to red): less hazard blue, more red
ZONE_CHANGE_COLOURS = ("#08519c", "#4292c6", "#c6dbef", "#f0f0f0", "#fcbba1", "#ef3b2c", "#99000d")

#: rasters whose zero means that no rock was there (drawn transparent, like NaN)
ZERO_IS_EMPTY = frozenset(
    {
        "reach_probability",
        "hazard_zone",
        "forest_stems_per_ha",
        "tree_impacts",
        "source_count",
        *(name for name, info in RASTER_INFO.items() if info.count),
    }
)


class MapFigure(NamedTuple):
    """A map of :func:`map_figure`: the figure, its map axes and its colour bar."""

    figure: Figure
    ax: Axes
    colorbar: Colorbar


# --- numbers ---------------------------------------------------------------------------------


def round_length(length: float) -> float:
    """The largest of 1, 2 or 5 times a power of ten not above ``length`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(length))
    for step in (5.0, 2.0, 1.0):
        if step * power <= length:
            return step * power
    return power


# --- maps ------------------------------------------------------------------------------------


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
    to at least half the longer, within the DEM; the whole DEM if nothing was reached. With
    ``passing_count`` and ``deposit_count`` among the rasters, the reached cells are those
    where either is positive, whatever the other rasters hold."""
    ny, nx = terrain.heights.shape
    if isinstance(rasters, Rasters):  # only its window holds values
        w = rasters.window
        j0, i0 = w.j0, w.i0
        items = [(name, rasters.in_window(name)) for name in rasters]
        reached = np.zeros((w.j1 - w.j0, w.i1 - w.i0), dtype=bool)
    else:
        j0 = i0 = 0
        items = list(rasters.items())
        reached = np.zeros((ny, nx), dtype=bool)
    if {"passing_count", "deposit_count"} <= {name for name, _ in items}:
        # the reached cells exactly (outputs.reached_cells): other rasters may hold values
        # where no rock came (the zoning frequencies are 0 there)
        items = [(n, v) for n, v in items if n in ("passing_count", "deposit_count")]
    for name, values in items:
        grid = np.asarray(values, dtype=np.float64)
        if grid.shape != reached.shape:
            continue
        defined = np.isfinite(grid)
        if name in ZERO_IS_EMPTY:
            defined &= grid > 0
        reached |= defined
    rows, cols = np.nonzero(reached)
    rows, cols = rows + j0, cols + i0
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


def _step(window: Window) -> int:
    """Block side of the decimated grids of a map of ``window`` (:mod:`tumble.viz.grids`)."""
    return decimation(window.j1 - window.j0, window.i1 - window.i0)


def _sub_terrain(terrain: Terrain, window: Window) -> Terrain:
    """The DEM over ``window``, every ``step``-th sample of a window too large to draw."""
    from tumble.rockfall.terrain import Terrain

    step = _step(window)
    heights = terrain.heights[window.j0 : window.j1 : step, window.i0 : window.i1 : step]
    if min(heights.shape) < 2:  # a one-cell window: shade the whole DEM's grid there
        return terrain
    return Terrain.from_array(
        heights,
        x0=terrain.x0 + window.i0 * terrain.dx,
        y0=terrain.y0 + window.j0 * terrain.dy,
        dx=terrain.dx * step,
        dy=terrain.dy * step,
    )


def _norm(name: str, values: np.ndarray) -> colors.Normalize:
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return colors.Normalize(0.0, 1.0)
    low, high = float(defined.min()), float(defined.max())
    if name == "hazard_zone":
        return colors.BoundaryNorm([0.5, 1.5, 2.5, 3.5], len(ZONE_COLOURS))
    if name == "converged":
        return colors.BoundaryNorm([-0.5, 0.5, 1.5], len(CONVERGED_COLOURS))
    if name == "delta_hazard_zone":
        return colors.BoundaryNorm(np.arange(-3.5, 4.0), len(ZONE_CHANGE_COLOURS))
    if name in DELTA_MAPS:  # a change: symmetric about 0, so that white is "unchanged"
        largest = max(abs(low), abs(high)) or 1.0
        return colors.Normalize(-largest, largest)
    if name == "reach_probability" and low > 0 and high >= 10 * low:
        return colors.LogNorm(low, high)
    if name in RASTER_INFO and RASTER_INFO[name].count:  # integers: one colour per count
        return colors.Normalize(0.5, max(high, 1.0) + 0.5)
    if high <= max(low, 0.0):
        return colors.Normalize(min(low, 0.0), high + 1.0)
    return colors.Normalize(min(low, 0.0), high)


def _colormap(name: str) -> colors.Colormap:
    import matplotlib

    if name == "hazard_zone":
        return colors.ListedColormap(list(ZONE_COLOURS), name="hazard_zones")
    if name == "converged":
        return colors.ListedColormap(list(CONVERGED_COLOURS), name="converged")
    if name == "delta_hazard_zone":
        return colors.ListedColormap(list(ZONE_CHANGE_COLOURS), name="zone_change")
    if name in DELTA_MAPS:
        return matplotlib.colormaps["RdBu_r"]
    _, cmap, start = MAPS.get(name, ("", "viridis", 0.0))
    full = matplotlib.colormaps[cmap]
    return colors.ListedColormap(full(np.linspace(start, 1.0, 256)), name=f"{cmap}_from_{start}")


def converged_where_reached(converged: np.ndarray, passing: np.ndarray) -> np.ndarray:
    """The converged map's values: ``converged`` (1 or 0) in the cells rocks reached
    (``passing`` > 0), NaN (the relief) where none came."""
    return np.where(np.asarray(passing) > 0, np.asarray(converged, dtype=np.float64), np.nan)


def _title(name: str) -> str:
    if name in DELTA_MAPS:
        return DELTA_MAPS[name][0]
    known = {**MAPS, **OPTIONAL_MAPS}
    return known[name][0] if name in known else name.replace("_", " ")


def _colorbar_label(name: str) -> str:
    info = RASTER_INFO.get(name)
    title = _title(name)
    if name == "hazard_zone":
        return f"{title} (Swiss intensity x probability matrix)"
    if name in DELTA_MAPS:
        return f"{title} ({DELTA_MAPS[name][1]})"
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


class MapLayout(NamedTuple):
    """Where the parts of a map figure go: ``size`` (width, height) in inches; ``map`` and
    ``colorbar`` the axes rectangles (left, bottom, width, height) as fractions of the figure."""

    size: tuple[float, float]
    map: tuple[float, float, float, float]
    colorbar: tuple[float, float, float, float]


#: margins of a map figure, inches: the northing labels (left); the colour bar, its ticks and
#: label (right); the easting labels, the axis label and the relief note (bottom); the title
#: (top) and each row of the legend above it
MAP_MARGINS = {"left": 0.9, "right": 1.2, "bottom": 0.72, "top": 0.42, "legend_row": 0.19}


def map_layout(width: float, height: float, legend_rows: int = 0) -> MapLayout:
    """The fixed layout of a map of ``width`` x ``height`` (map units, drawn at equal scale):
    the map 6.6 in wide and at most 7.8 in high, the figure at least 5 x 3.8 in, with the
    margins of :data:`MAP_MARGINS` and ``legend_rows`` rows of legend above the title. Fixed
    rather than computed from the text when the figure is saved (a constrained layout), which
    would lay every label out once more per figure."""
    map_w = min(6.6, 7.8 * width / height)
    map_h = map_w * height / width
    m = MAP_MARGINS
    top = m["top"] + (legend_rows * m["legend_row"] + 0.05 if legend_rows else 0.0)
    fig_w = max(5.0, m["left"] + map_w + m["right"])  # room for the relief note below
    fig_h = max(3.8, m["bottom"] + map_h + top)
    bottom = m["bottom"] + 0.5 * (fig_h - m["bottom"] - map_h - top)  # centred in the room
    bar_h = max(0.85 * map_h, min(2.5, fig_h - m["bottom"] - top))
    bar_bottom = bottom + 0.5 * (map_h - bar_h)
    return MapLayout(
        (fig_w, fig_h),
        (m["left"] / fig_w, bottom / fig_h, map_w / fig_w, map_h / fig_h),
        ((m["left"] + map_w + 0.12) / fig_w, bar_bottom / fig_h, 0.15 / fig_w, bar_h / fig_h),
    )


def map_figure(
    terrain: Terrain,
    name: str,
    values: np.ndarray,
    window: Window,
    *,
    rocks: Mapping[str, np.ndarray] | None = None,
    n_rocks: int | None = None,
    shaded: Relief | None = None,
    exits: Mapping[str, np.ndarray] | None = None,
    geometry: Mapping[str, Any] | None = None,
    frame: Window | None = None,
) -> MapFigure:
    """A map of raster ``name`` (values (ny, nx) on the DEM grid, or over ``window`` only) over the
    multidirectional hillshade of ``window`` (``shaded``, from :func:`relief` if not given), with
    colour bar, scale bar, north arrow, the release points of ``rocks`` (``release_x``,
    ``release_y``) and, given ``exits`` (the exit table: ``x``, ``y``, ``kind``), the points where
    rocks left the DEM, as the module docstring describes; given the run's ``geometry``
    (``geometry.json``) its barrier lines with their names and its release areas as outlines
    (the release points only where it has none); given a ``frame`` (an overview), the frame
    of that window, dashed. A window larger than
    :data:`tumble.viz.grids.MAX_MAP_CELLS` a side is drawn from block maxima. One map of a
    :class:`MapSeries`."""
    series = MapSeries(
        terrain, window, rocks=rocks, shaded=shaded, exits=exits, geometry=geometry, frame=frame
    )
    return series.draw(name, values, n_rocks=n_rocks, exits=exits is not None)


class MapSeries:
    """Maps of several rasters over one window (:func:`map_figure`), drawn on one figure: the
    relief, overlays, axes, scale bar and north arrow are made once, and each :meth:`draw`
    puts a raster, its colour bar, title and legend on them. The artists are made in the order
    :func:`map_figure` makes them and those a map does not have are hidden, so every map is
    drawn as on a figure of its own, pixel for pixel, without making the axes, ticks and
    overlays again. The figure of a :meth:`draw` is valid until the next one."""

    def __init__(
        self,
        terrain: Terrain,
        window: Window,
        *,
        rocks: Mapping[str, np.ndarray] | None = None,
        shaded: Relief | None = None,
        exits: Mapping[str, np.ndarray] | None = None,
        geometry: Mapping[str, Any] | None = None,
        frame: Window | None = None,
    ) -> None:
        self.terrain, self.window = terrain, window
        unit = crs_unit(terrain.crs)
        self.shaded = shaded = relief(terrain, window) if shaded is None else shaded
        self.extent = extent = _window_extent(terrain, window)
        self.width, self.height = width, height = extent[1] - extent[0], extent[3] - extent[2]
        placed = map_layout(width, height)
        self.figure = fig = Figure(figsize=placed.size)
        self.ax = ax = fig.add_axes(placed.map)
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
        self.image = ax.imshow(
            np.ma.masked_all((2, 2)),
            origin="lower",
            extent=extent,
            alpha=0.8,
            interpolation="nearest",
        )
        self.colorbar: Colorbar | None = None
        self.legend: Any = None
        self.no_values = ax.text(
            0.5, 0.5, "no values", transform=ax.transAxes, ha="center", va="center", fontsize=14
        )
        draw_barriers(ax, geometry, extent)
        if not draw_release_areas(ax, geometry) and rocks is not None:
            draw_release_points(ax, terrain, window, rocks)
        if frame is not None:
            draw_frame(ax, _window_extent(terrain, frame))
        before = set(ax.get_children())
        if exits is not None:
            draw_exits(ax, exits)
        self.exit_markers = [a for a in ax.get_children() if a not in before]
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
        scale_bar = AnchoredSizeBar(
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
        scale_bar.set_zorder(7)  # over the frame of the detailed maps on an overview
        ax.add_artist(scale_bar)
        north = true_north_deg(
            terrain, 0.5 * (extent[0] + extent[1]), 0.5 * (extent[2] + extent[3])
        )
        _north_arrow(ax, north)
        self.title = ax.set_title("", fontsize=11)
        fig.supxlabel(
            f"Relief: hillshade lit from 4 directions, vertical exaggeration "
            f"{shaded.exaggeration:.2g}. Arrow: "
            + ("true north." if north is not None else "grid north (the DEM has no CRS)."),
            fontsize=7,
            color="#555",
            x=0.99,
            y=0.02,
            ha="right",
            va="bottom",
        )

    def draw(
        self, name: str, values: np.ndarray, *, n_rocks: int | None = None, exits: bool = False
    ) -> MapFigure:
        """The map of raster ``name`` (values on the DEM grid or over the window), with the exit
        markers when ``exits``."""
        window, fig, ax = self.window, self.figure, self.ax
        grid = np.asarray(values, dtype=np.float64)
        if grid.shape != (window.j1 - window.j0, window.i1 - window.i0):
            grid = grid[window.j0 : window.j1, window.i0 : window.i1]
        if name in DELTA_MAPS:  # a block shows its largest change, up or down
            up, down = block_max(grid, _step(window)), -block_max(-grid, _step(window))
            grid = np.where(np.abs(down) > np.abs(up), down, up)
        else:
            grid = block_max(grid, _step(window))
        empty = ~np.isfinite(grid)
        if name in ZERO_IS_EMPTY:
            empty |= grid <= 0
        if name in DELTA_MAPS:  # no change: the relief shows through
            empty |= grid == 0
        if self.colorbar is not None:
            self.colorbar.remove()
        if self.legend is not None:
            self.legend.remove()
            self.legend = None
        image = self.image
        image.set_cmap(_colormap(name))
        image.set_norm(_norm(name, np.where(empty, np.nan, grid)))
        image.set_data(np.ma.masked_array(grid, mask=empty))
        handles, labels = ax.get_legend_handles_labels()
        for marker in self.exit_markers:
            marker.set_visible(exits)
        if not exits:
            shown = [(h, lab) for h, lab in zip(handles, labels, strict=True)]
            shown = [(h, lab) for h, lab in shown if h not in self.exit_markers]
            handles, labels = [h for h, _ in shown], [lab for _, lab in shown]
        placed = map_layout(self.width, self.height, math.ceil(len(handles) / 3))
        fig.set_size_inches(placed.size)
        ax.set_position(placed.map)
        colorbar = fig.colorbar(image, cax=fig.add_axes(placed.colorbar))
        self.colorbar = colorbar
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
        elif name == "hazard_zone":
            colorbar.set_ticks([1, 2, 3], labels=["yellow", "blue", "red"])
        elif name == "converged":
            colorbar.set_ticks([0, 1], labels=["no", "yes"])
        elif name == "delta_hazard_zone":
            colorbar.set_ticks(range(-3, 4), labels=["-3", "-2", "-1", "0", "+1", "+2", "+3"])
        self.no_values.set_visible(bool(empty.all()))
        if handles:  # above the map: never over the data
            self.legend = fig.legend(
                handles,
                labels,
                loc="upper center",
                bbox_to_anchor=(0.5, 1.0),
                ncol=3,
                fontsize=8,
                borderaxespad=0.2,
            )
        count = f", {n_rocks} rock{'s' if n_rocks != 1 else ''}" if n_rocks else ""
        self.title.set_text(f"{_title(name)}{count}")
        return MapFigure(fig, ax, colorbar)


# --- HTML pieces -----------------------------------------------------------------------------
