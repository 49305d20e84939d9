"""The files of a finished run of ``tumble rockfall run`` that the algorithm returns, and the
QML style of each (``styles/``, also usable without the plugin: Layer Properties > Style > Load
Style). No QGIS import here."""

import os
import shutil

STYLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "styles")

#: output name -> (file in the run folder, layer name with its unit, style)
RASTERS = {
    "REACH_PROBABILITY": (
        "rasters/reach_probability.tif",
        "reach probability (fraction of rocks)",
        "reach_probability.qml",
    ),
    "KINETIC_ENERGY_P95": (
        "rasters/kinetic_energy_p95.tif",
        "kinetic energy p95 (kJ)",
        "kinetic_energy.qml",
    ),
    "JUMP_HEIGHT_P95": (
        "rasters/jump_height_p95.tif",
        "jump height p95, vertical (m)",
        "jump_height.qml",
    ),
    "HAZARD_ZONE": ("rasters/hazard_zone.tif", "hazard zone", "hazard_zone.qml"),
    "ENERGY_LINE_ANGLE": (
        "rasters/energy_line_angle.tif",
        "energy-line angle, smallest (deg)",
        "energy_line_angle.qml",
    ),
}
VECTORS = {
    "DEPOSITS": ("deposits.gpkg", "deposits", "deposits.qml"),
    "EXITS": ("exits.gpkg", "exits (rocks that left the DEM)", "exits.qml"),
}


def outputs(run):
    """``{output name: (path, layer name, style path, is raster)}`` of the files the run folder
    ``run`` holds (a run without release frequencies has no hazard zone)."""
    found = {}
    for table, raster in ((RASTERS, True), (VECTORS, False)):
        for name, (relative, title, style) in table.items():
            path = os.path.join(run, *relative.split("/"))
            if os.path.isfile(path):
                found[name] = (path, title, os.path.join(STYLES, style), raster)
    return found


def place_styles(found):
    """Copy each output's style beside its file (``reach_probability.qml`` beside
    ``reach_probability.tif``): QGIS loads a layer with the style of that name, with or
    without the plugin."""
    for path, _title, style, _raster in found.values():
        shutil.copyfile(style, os.path.splitext(path)[0] + ".qml")
