"""The README's QGIS pictures, made as a user would make them and drawn by QGIS's own map
renderer, headless: a synthetic slope with a gully, two release areas and three barrier lines,
a run without barriers (A) and one with the nets (B) through ``tumble:rockfall_run``, the lines'
design values through ``tumble:barriers_replay`` on A, and the change from A to B through
``tumble:compare_runs``; each picture is the results with the plugin's styles over a hillshade.

Run with the Python that imports ``qgis`` (not tumble's environment), tumble's command given by
``TUMBLE_COMMAND``::

    TUMBLE_COMMAND=$PWD/.venv/bin/tumble QT_QPA_PLATFORM=offscreen \\
        /usr/bin/python3 qgis/render_screenshots.py out/qgis-screenshots docs/img

Writes ``qgis_reach_probability.png``, ``qgis_hazard_zone.png`` and ``qgis_compare.png`` into
the second folder (about a minute with the kernels compiled).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = ["/usr/share/qgis/python/plugins", HERE]

import numpy as np  # noqa: E402
from osgeo import gdal, osr  # noqa: E402
from qgis.core import (  # noqa: E402
    QgsApplication,
    QgsBilinearRasterResampler,
    QgsContrastEnhancement,
    QgsFillSymbol,
    QgsLayerTree,
    QgsLayerTreeModel,
    QgsLegendRenderer,
    QgsLegendSettings,
    QgsLegendStyle,
    QgsMapLayerLegendUtils,
    QgsMapRendererSequentialJob,
    QgsMapSettings,
    QgsRasterLayer,
    QgsRenderContext,
    QgsSingleBandGrayRenderer,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QPointF, QSize  # noqa: E402
from qgis.PyQt.QtGui import QColor, QFont, QImage, QPainter  # noqa: E402

#: the site: 2 m cells, 110 x 50 of them, in the Swiss grid
CELL, NX, NY, X0, Y0 = 2.0, 110, 50, 2600000.0, 1200000.0
EPSG = 2056
#: size of the map and of the legend beside it, in pixels
MAP = QSize(700, 320)
LEGEND_WIDTH = 300
DPI = 96.0


def write_site(folder):
    """The DEM (a 38 degree slope with a gully onto a flat run-out), the release areas and the
    barrier lines; returns their paths."""
    x = (np.arange(NX) + 0.5) * CELL
    y = (np.arange(NY) + 0.5) * CELL
    xx, yy = np.meshgrid(x, y[::-1])
    slope = np.where(xx < 110, (110 - xx) * np.tan(np.radians(38)), 0.0)
    gully = 5.0 * np.exp(-(((yy - 62) / 9) ** 2)) * np.clip((110 - xx) / 40, 0, 1)
    bumps = 0.6 * np.sin(xx / 7.0) * np.cos(yy / 9.0) * (xx < 110)
    z = (slope - gully + bumps + 0.02 * yy).astype("float32")
    dem = os.path.join(folder, "dem.tif")
    raster = gdal.GetDriverByName("GTiff").Create(dem, NX, NY, 1, gdal.GDT_Float32)
    raster.SetGeoTransform((X0, CELL, 0, Y0 + NY * CELL, 0, -CELL))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(EPSG)
    raster.SetProjection(srs.ExportToWkt())
    raster.GetRasterBand(1).WriteArray(z)
    raster = None

    def box(x1, y1, x2, y2):
        ring = [[X0 + x1, Y0 + y1], [X0 + x2, Y0 + y1], [X0 + x2, Y0 + y2], [X0 + x1, Y0 + y2]]
        return {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}

    def line(x, y1, y2):
        return {"type": "LineString", "coordinates": [[X0 + x, Y0 + y1], [X0 + x, Y0 + y2]]}

    release = write_geojson(
        os.path.join(folder, "release.geojson"),
        [
            (box(8, 20, 22, 46), {"name": "west cliff", "frequency": 0.2}),
            (box(8, 54, 22, 74), {"name": "gully head", "frequency": 0.5}),
        ],
    )
    lines = write_geojson(
        os.path.join(folder, "barriers.geojson"),
        [
            (line(104, 6, 94), {"name": "net 1", "height": 2.0, "capacity": 250.0}),
            (line(136, 6, 94), {"name": "net 2", "height": 4.0, "capacity": 1000.0}),
            (line(176, 6, 94), {"name": "road", "height": None, "capacity": None}),
        ],
    )
    config = os.path.join(folder, "study.toml")
    with open(config, "w", encoding="utf-8") as file:
        file.write("[output]\nfigures = false\ntrajectories = 120\n")
    return dem, release, lines, config


def write_geojson(path, features):
    collection = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": f"urn:ogc:def:crs:EPSG::{EPSG}"}},
        "features": [
            {"type": "Feature", "properties": props, "geometry": geometry}
            for geometry, props in features
        ],
    }
    with open(path, "w", encoding="utf-8") as file:
        json.dump(collection, file)
    return path


def run_study(folder):
    """Runs A (no barriers) and B (the nets), the replay of the lines on A and the change
    from A to B, through the plugin's algorithms: their results."""
    import processing
    from processing.core.Processing import Processing
    from tumble_qgis.provider import TumbleProvider

    Processing.initialize()
    provider = TumbleProvider()
    QgsApplication.processingRegistry().addProvider(provider)
    dem, release, lines, config = write_site(folder)
    common = {
        "DEM": dem,
        "RELEASE": release,
        "NAME_FIELD": "name",
        "FREQUENCY_FIELD": "frequency",
        "ROCKS": 300,
        "CONFIG": config,
    }
    a = processing.run("tumble:rockfall_run", {**common, "OUTPUT": os.path.join(folder, "A")})
    b = processing.run(
        "tumble:rockfall_run",
        {**common, "BARRIERS": lines, "OUTPUT": os.path.join(folder, "B")},
    )
    replay = processing.run(
        "tumble:barriers_replay",
        {"RUN": a["OUTPUT"], "LINES": lines, "OUTPUT": os.path.join(folder, "A_barriers")},
    )
    compare = processing.run(
        "tumble:compare_runs",
        {"RUN_A": a["OUTPUT"], "RUN_B": b["OUTPUT"], "OUTPUT": os.path.join(folder, "A_to_B")},
    )
    return {"dem": dem, "release": release, "a": a, "b": b, "replay": replay, "compare": compare}


def raster(path, name):
    layer = QgsRasterLayer(path, name)
    layer.loadDefaultStyle()  # the style the plugin placed beside the file
    return layer


def vector(path, name):
    layer = QgsVectorLayer(path, name, "ogr")
    layer.loadDefaultStyle()
    return layer


def hillshade(dem, folder):
    """A hillshade of the DEM (GDAL's, at the DEM's cells) drawn in grey, smoothed when zoomed
    in: QGIS's hillshade renderer shades the zoomed-in pixels, which shows the cell edges."""
    path = os.path.join(folder, "hillshade.tif")
    gdal.DEMProcessing(path, dem, "hillshade", azimuth=315.0, altitude=40.0, computeEdges=True)
    layer = QgsRasterLayer(path, "hillshade")
    grey = QgsSingleBandGrayRenderer(layer.dataProvider(), 1)
    stretch = QgsContrastEnhancement(layer.dataProvider().dataType(1))
    stretch.setContrastEnhancementAlgorithm(QgsContrastEnhancement.StretchToMinimumMaximum)
    stretch.setMinimumValue(0.0)
    stretch.setMaximumValue(255.0)
    grey.setContrastEnhancement(stretch)
    layer.setRenderer(grey)
    layer.resampleFilter().setZoomedInResampler(QgsBilinearRasterResampler())
    layer.resampleFilter().setZoomedOutResampler(QgsBilinearRasterResampler())
    return layer


def legend_settings():
    """Small legend text: layer names 8 pt bold, entries 7 pt."""
    settings = QgsLegendSettings()
    for style, size, bold in (
        (QgsLegendStyle.Title, 8, True),
        (QgsLegendStyle.Group, 8, True),
        (QgsLegendStyle.Subgroup, 8, True),
        (QgsLegendStyle.SymbolLabel, 7, False),
    ):
        font = QFont("DejaVu Sans", size)
        font.setBold(bold)
        legend_style = settings.style(style)
        legend_style.setFont(font)
        settings.setStyle(style, legend_style)
    return settings


def render(layers, legend, extent_layer, path):
    """Draw ``layers`` (top first) over ``extent_layer``'s extent, with the legend of the
    layers ``legend`` on the right, into the PNG ``path``."""
    settings = QgsMapSettings()
    settings.setLayers(layers)
    settings.setDestinationCrs(extent_layer.crs())
    settings.setBackgroundColor(QColor("white"))
    settings.setOutputSize(MAP)
    settings.setOutputDpi(DPI)
    settings.setExtent(extent_layer.extent())
    job = QgsMapRendererSequentialJob(settings)
    job.start()
    job.waitForFinished()
    image = QImage(MAP.width() + LEGEND_WIDTH, MAP.height(), QImage.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.drawImage(0, 0, job.renderedImage())
    root = QgsLayerTree()
    for layer in legend:
        root.addLayer(layer)
    model = QgsLayerTreeModel(root)
    for node in root.findLayers():
        # a raster's first entry is its band's description, as long as a sentence: left out
        entries = model.layerOriginalLegendNodes(node)
        if isinstance(node.layer(), QgsRasterLayer) and len(entries) > 1:
            QgsMapLayerLegendUtils.setLegendNodeOrder(node, list(range(1, len(entries))))
            model.refreshLayerLegend(node)
    painter.save()
    painter.translate(QPointF(MAP.width() + 8, 8))
    # the legend is laid out in millimetres: the painter draws a millimetre as DPI / 25.4 px
    painter.scale(DPI / 25.4, DPI / 25.4)
    context = QgsRenderContext.fromQPainter(painter)
    context.setScaleFactor(1.0)
    context.setFlag(QgsRenderContext.Antialiasing, True)
    QgsLegendRenderer(model, legend_settings()).drawLegend(context)
    painter.restore()
    painter.end()
    if not image.save(path, "PNG"):
        raise OSError(f"{path} could not be written")
    print(f"{path}: {os.path.getsize(path) // 1024} kB")


def pictures(study, folder, images):
    """The three pictures of the README."""
    shade = hillshade(study["dem"], folder)
    release = QgsVectorLayer(study["release"], "release areas", "ogr")
    release.renderer().setSymbol(
        QgsFillSymbol.createSimple(
            {"color": "0,0,0,0", "outline_color": "#222222", "outline_width": "0.6"}
        )
    )
    a, b = study["a"], study["b"]
    reach = raster(a["REACH_PROBABILITY"], "reach probability, run A")
    reach.renderer().setOpacity(0.85)
    lines = vector(study["replay"]["BARRIERS"], "barrier lines (replay on A)")
    render(
        [lines, release, reach, shade],
        [lines, reach],
        shade,
        os.path.join(images, "qgis_reach_probability.png"),
    )
    zones = raster(b["HAZARD_ZONE"], "hazard zone, run B (nets)")
    zones.renderer().setOpacity(0.8)
    deposits = vector(b["DEPOSITS"], "deposits, run B")
    render(
        [deposits, release, zones, shade],
        [deposits, zones],
        shade,
        os.path.join(images, "qgis_hazard_zone.png"),
    )
    change = raster(study["compare"]["DELTA_REACH_PROBABILITY"], "reach probability, B - A")
    render(
        [lines, release, change, shade],
        [change],
        shade,
        os.path.join(images, "qgis_compare.png"),
    )


def main(folder, images):
    os.makedirs(folder, exist_ok=True)
    os.makedirs(images, exist_ok=True)
    QgsApplication.setPrefixPath("/usr", True)
    app = QgsApplication([], False)
    app.initQgis()
    folder = os.path.abspath(folder)
    pictures(run_study(folder), folder, images)
    # every layer is gone with pictures(): QGIS closes its providers before Python's own exit
    app.exitQgis()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: render_screenshots.py WORK_FOLDER IMAGE_FOLDER")
    main(sys.argv[1], sys.argv[2])
