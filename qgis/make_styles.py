"""Write the QML styles of ``tumble_qgis/styles/`` with QGIS's own classes (run with the Python
that imports ``qgis``: ``python3 qgis/make_styles.py``). The styles are committed; run this after
changing one.

Colours: reach probability on viridis and the energies and jump heights on magma/inferno
(perceptual, readable in grey), with the Swiss intensity limits of rockfall (30 and 300 kJ) as
class edges; hazard zones in the Swiss colours (red, blue, yellow); exits by kind, deposits by
status; barrier lines by verdict (green verified, red not verified, grey dashed without one); the
differences of two runs (B minus A) on a diverging blue-white-red ramp, red where B is more
exposed.
"""

import os
import sys

from qgis.core import (
    QgsApplication,
    QgsCategorizedSymbolRenderer,
    QgsColorRampShader,
    QgsLineSymbol,
    QgsMarkerSymbol,
    QgsPalettedRasterRenderer,
    QgsRasterLayer,
    QgsRasterShader,
    QgsRendererCategory,
    QgsSingleBandPseudoColorRenderer,
    QgsVectorLayer,
)
from qgis.PyQt.QtGui import QColor

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tumble_qgis", "styles")

#: (file, unit suffix, [(value, colour, label)]) of the continuous rasters
RAMPS = {
    "reach_probability.qml": (
        "",
        [
            (0.001, "#440154", "0.001 (0.1 %)"),
            (0.01, "#3b528b", "0.01 (1 %)"),
            (0.05, "#21918c", "0.05 (5 %)"),
            (0.2, "#5ec962", "0.2 (20 %)"),
            (1.0, "#fde725", "1 (every rock)"),
        ],
    ),
    "kinetic_energy.qml": (
        " kJ",
        [
            (0.0, "#fcfdbf", "0 kJ"),
            (30.0, "#fc8961", "30 kJ (weak | medium)"),
            (300.0, "#b73779", "300 kJ (medium | strong)"),
            (1000.0, "#51127c", "1000 kJ"),
            (3000.0, "#000004", "3000 kJ and more"),
        ],
    ),
    "jump_height.qml": (
        " m",
        [
            (0.0, "#fcffa4", "0 m (rolling)"),
            (0.5, "#f98e09", "0.5 m"),
            (1.0, "#bc3754", "1 m"),
            (2.0, "#57106e", "2 m"),
            (5.0, "#000004", "5 m and more"),
        ],
    ),
    "energy_line_angle.qml": (
        " deg",
        [
            (20.0, "#2166ac", "20 deg"),
            (27.5, "#67a9cf", "27.5 deg (lowest in records)"),
            (32.0, "#f7f7f7", "32 deg"),
            (37.0, "#ef8a62", "37 deg"),
            (45.0, "#b2182b", "45 deg and more"),
        ],
    ),
    "delta_reach_probability.qml": (
        "",
        [
            (-0.2, "#2166ac", "-0.2 (B reached less often)"),
            (-0.05, "#67a9cf", "-0.05"),
            (0.0, "#f7f7f7", "0 (unchanged)"),
            (0.05, "#ef8a62", "+0.05"),
            (0.2, "#b2182b", "+0.2 (B reached more often)"),
        ],
    ),
    "delta_kinetic_energy.qml": (
        " kJ",
        [
            (-300.0, "#2166ac", "-300 kJ (B lower)"),
            (-30.0, "#67a9cf", "-30 kJ"),
            (0.0, "#f7f7f7", "0 kJ (unchanged)"),
            (30.0, "#ef8a62", "+30 kJ"),
            (300.0, "#b2182b", "+300 kJ (B higher)"),
        ],
    ),
}
#: the raster each ramp is made on (the style does not depend on its values)
RAMP_RASTERS = {
    "reach_probability.qml": "reach_probability",
    "kinetic_energy.qml": "kinetic_energy_p95",
    "jump_height.qml": "jump_height_p95",
    "energy_line_angle.qml": "energy_line_angle",
    "delta_reach_probability.qml": "reach_probability",
    "delta_kinetic_energy.qml": "kinetic_energy_p95",
}
ZONE_CHANGES = [
    (-3, "#2166ac", "-3 (red to none)"),
    (-2, "#67a9cf", "-2"),
    (-1, "#d1e5f0", "-1 (one zone lower)"),
    (0, "#f7f7f7", "0 (unchanged)"),
    (1, "#fddbc7", "+1 (one zone higher)"),
    (2, "#ef8a62", "+2"),
    (3, "#b2182b", "+3 (none to red)"),
]
VERDICTS = [
    ("verified", "#1a9641", "solid", "verified (UNI 11211-4: energy and height)"),
    ("not verified", "#d7191c", "solid", "not verified"),
    ("no verdict", "#707070", "dash", "no verdict (observation line, or no rock crossed)"),
]
ZONES = [
    (1, "#ffe600", "yellow: weak"),
    (2, "#1f5fd6", "blue: medium"),
    (3, "#e31a1c", "red: strong"),
]
DEPOSITS = [
    ("stopped", "#33a02c", "stopped"),
    ("caught", "#1f78b4", "caught by a net"),
    ("left_domain", "#ff7f00", "left the DEM"),
    ("timed_out", "#6a3d9a", "still moving at t_max"),
    ("", "#e31a1c", "failed"),
]
EXITS = [
    ("downslope_edge", "#e31a1c", "left across the downslope edge"),
    ("side_edge", "#ff7f00", "left across a side edge"),
    ("nodata_hole", "#6a3d9a", "fell into a nodata hole"),
]


def ramp_style(layer, suffix, stops, path):
    shader = QgsColorRampShader(stops[0][0], stops[-1][0])
    shader.setColorRampType(QgsColorRampShader.Interpolated)
    shader.setClip(False)
    shader.setColorRampItemList(
        [QgsColorRampShader.ColorRampItem(v, QColor(c), label) for v, c, label in stops]
    )
    legend = shader.legendSettings()
    legend.setSuffix(suffix)
    shader.setLegendSettings(legend)
    raster_shader = QgsRasterShader()
    raster_shader.setRasterShaderFunction(shader)
    renderer = QgsSingleBandPseudoColorRenderer(layer.dataProvider(), 1, raster_shader)
    renderer.setClassificationMin(stops[0][0])
    renderer.setClassificationMax(stops[-1][0])
    layer.setRenderer(renderer)
    layer.saveNamedStyle(path)


def categories(layer, field, table, path, size):
    cats = []
    for value, colour, label in table:
        symbol = QgsMarkerSymbol.createSimple(
            {"name": "circle", "color": colour, "outline_color": "#222222", "size": str(size)}
        )
        cats.append(QgsRendererCategory(value, symbol, label))
    layer.setRenderer(QgsCategorizedSymbolRenderer(field, cats))
    layer.saveNamedStyle(path)


def main(run):
    QgsApplication.setPrefixPath("/usr", True)
    app = QgsApplication([], False)
    app.initQgis()
    for name, (suffix, stops) in RAMPS.items():
        raster = RAMP_RASTERS[name]
        layer = QgsRasterLayer(os.path.join(run, "rasters", f"{raster}.tif"), raster)
        ramp_style(layer, suffix, stops, os.path.join(HERE, name))
    layer = QgsRasterLayer(os.path.join(run, "rasters", "reach_probability.tif"), "zones")
    classes = [QgsPalettedRasterRenderer.Class(v, QColor(c), label) for v, c, label in ZONES]
    layer.setRenderer(QgsPalettedRasterRenderer(layer.dataProvider(), 1, classes))
    layer.saveNamedStyle(os.path.join(HERE, "hazard_zone.qml"))
    layer = QgsRasterLayer(os.path.join(run, "rasters", "reach_probability.tif"), "zone change")
    classes = [QgsPalettedRasterRenderer.Class(v, QColor(c), label) for v, c, label in ZONE_CHANGES]
    layer.setRenderer(QgsPalettedRasterRenderer(layer.dataProvider(), 1, classes))
    layer.saveNamedStyle(os.path.join(HERE, "delta_hazard_zone.qml"))
    layer = QgsVectorLayer("LineString?field=verdict:string", "barrier lines", "memory")
    cats = []
    for value, colour, pen, label in VERDICTS:
        symbol = QgsLineSymbol.createSimple(
            {"line_color": colour, "line_width": "1.2", "line_style": pen, "capstyle": "round"}
        )
        cats.append(QgsRendererCategory(value, symbol, label))
    layer.setRenderer(QgsCategorizedSymbolRenderer("verdict", cats))
    layer.saveNamedStyle(os.path.join(HERE, "barrier_lines.qml"))
    layer = QgsVectorLayer(os.path.join(run, "deposits.gpkg"), "deposits", "ogr")
    categories(layer, "status", DEPOSITS, os.path.join(HERE, "deposits.qml"), 1.6)
    layer = QgsVectorLayer(os.path.join(run, "exits.gpkg"), "exits", "ogr")
    categories(layer, "kind", EXITS, os.path.join(HERE, "exits.qml"), 2.4)
    app.exitQgis()


if __name__ == "__main__":
    main(sys.argv[1])
