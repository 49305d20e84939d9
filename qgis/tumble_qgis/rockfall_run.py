"""``tumble:rockfall_run``: ``tumble rockfall run`` on a DEM and release areas drawn in QGIS.

The layers are written to files beside the run folder (``<run folder>_inputs/``: the DEM as
GeoTIFF unless it is one already, the release areas and barrier lines as GeoPackages in the DEM's
CRS), the installed ``tumble`` command runs in a subprocess with them, and the run's rasters,
deposits and exits are returned as layers with the styles of ``styles/``.
"""

import os

from qgis.core import (
    QgsFeature,
    QgsField,
    QgsFields,
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputRasterLayer,
    QgsProcessingOutputVectorLayer,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterField,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterLayer,
    QgsRasterFileWriter,
    QgsRasterPipe,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QVariant

from . import results
from .algorithm import TumbleAlgorithm, close, to_crs, writer
from .barrier_layer import barrier_entries, write_barriers_file

#: file extensions tumble reads a DEM from as it is
DEM_FILES = (".tif", ".tiff", ".asc")


class RockfallRun(TumbleAlgorithm):
    DEM = "DEM"
    RELEASE = "RELEASE"
    NAME_FIELD = "NAME_FIELD"
    FREQUENCY_FIELD = "FREQUENCY_FIELD"
    ROCKS = "ROCKS"
    CONFIG = "CONFIG"
    BARRIERS = "BARRIERS"
    OUTPUT = "OUTPUT"

    def name(self):
        return "rockfall_run"

    def displayName(self):
        return "Rockfall run"

    def shortHelpString(self):
        return (
            "Runs tumble rockfall run (the installed tumble command, found from the provider's "
            "setting, TUMBLE_COMMAND or PATH) on the DEM and the release areas: polygons, or "
            "points and lines buffered by half a DEM cell (at least 1 m). NAME_FIELD names "
            "each area, FREQUENCY_FIELD gives its onset events per year (then the run zones "
            "the hazard). ROCKS 0 runs until the maps converge. CONFIG is a TOML file of "
            "tumble for everything else (rock classes, soil map, forest); BARRIERS a line "
            "layer with the attributes tumble's barrier files take (name, height, capacity, "
            "uphill). The run folder keeps every result; a cancelled run is finished by "
            "running again with the same inputs and folder."
        )

    def createInstance(self):
        return RockfallRun()

    def initAlgorithm(self, config=None):
        self.addParameter(QgsProcessingParameterRasterLayer(self.DEM, "DEM (metres)"))
        self.addParameter(
            QgsProcessingParameterFeatureSource(
                self.RELEASE,
                "Release areas (polygons, lines or points)",
                [QgsProcessing.TypeVectorAnyGeometry],
            )
        )
        self.addParameter(
            QgsProcessingParameterField(
                self.NAME_FIELD,
                "Area name field",
                parentLayerParameterName=self.RELEASE,
                optional=True,
            )
        )
        self.addParameter(
            QgsProcessingParameterField(
                self.FREQUENCY_FIELD,
                "Onset frequency field (events per year and area)",
                parentLayerParameterName=self.RELEASE,
                type=QgsProcessingParameterField.Numeric,
                optional=True,
            )
        )
        self.addParameter(
            QgsProcessingParameterNumber(
                self.ROCKS,
                "Rocks (0: until the maps converge)",
                QgsProcessingParameterNumber.Integer,
                defaultValue=200,
                minValue=0,
            )
        )
        self.addParameter(
            QgsProcessingParameterFile(
                self.CONFIG, "tumble configuration (TOML)", extension="toml", optional=True
            )
        )
        self.addParameter(
            QgsProcessingParameterFeatureSource(
                self.BARRIERS,
                "Barrier lines",
                [QgsProcessing.TypeVectorLine],
                optional=True,
            )
        )
        self.addParameter(QgsProcessingParameterFolderDestination(self.OUTPUT, "Run folder"))
        for name, (_path, title, _style) in results.RASTERS.items():
            self.addOutput(QgsProcessingOutputRasterLayer(name, title))
        self.addOutput(
            QgsProcessingOutputVectorLayer("DEPOSITS", "Deposits", QgsProcessing.TypeVectorPoint)
        )
        self.addOutput(
            QgsProcessingOutputVectorLayer("EXITS", "Exits", QgsProcessing.TypeVectorPoint)
        )

    def processAlgorithm(self, parameters, context, feedback):
        tumble = self.tumble_command(feedback)

        out = os.path.abspath(self.parameterAsString(parameters, self.OUTPUT, context))
        inputs = out.rstrip(os.sep) + "_inputs"
        os.makedirs(inputs, exist_ok=True)
        dem_layer = self.parameterAsRasterLayer(parameters, self.DEM, context)
        if dem_layer is None or not dem_layer.isValid():
            raise QgsProcessingException("the DEM layer cannot be read")
        dem = self._dem_file(dem_layer, inputs, context)
        crs = dem_layer.crs()

        argv = [tumble, "rockfall", "run"]
        config = self.parameterAsFile(parameters, self.CONFIG, context)
        if config:
            argv += ["--config", os.path.abspath(config)]
        rocks = self.parameterAsInt(parameters, self.ROCKS, context)
        argv += ["--dem", dem, "--rocks", str(rocks) if rocks > 0 else "auto"]

        release = self.parameterAsSource(parameters, self.RELEASE, context)
        if release is None:
            raise QgsProcessingException("the release layer cannot be read")
        name_field = self.parameterAsString(parameters, self.NAME_FIELD, context)
        frequency_field = self.parameterAsString(parameters, self.FREQUENCY_FIELD, context)
        cell = max(abs(dem_layer.rasterUnitsPerPixelX()), abs(dem_layer.rasterUnitsPerPixelY()))
        areas = os.path.join(inputs, "release.gpkg")
        self._write_release(
            release, areas, crs, context, name_field, frequency_field, max(cell / 2, 1.0)
        )
        argv += [toml_override("release.areas", areas)]
        if name_field:
            argv += [toml_override("release.name_field", "name")]
        if frequency_field:
            argv += [toml_override("release.frequency_field", "frequency")]

        barriers = self.parameterAsSource(parameters, self.BARRIERS, context)
        if barriers is not None:
            lines = os.path.join(inputs, "barriers.toml")
            write_barriers_file(barrier_entries(barriers, crs, context), lines)
            argv += ["--barriers", lines]
        # --resume: a new folder starts, an interrupted run finishes, a finished one is reused
        argv += ["--resume", "--out", out]
        self.run_tumble(
            argv,
            feedback,
            cwd=inputs,
            resume=f"{out} keeps the rocks of the finished chunks; run again with the same "
            "inputs and folder to finish it",
        )
        found = results.outputs(out)
        results.place_styles(found)
        return {self.OUTPUT: out, **self.load_styled(found, context, out)}

    def _dem_file(self, layer, inputs, context):
        """The DEM as a file tumble reads: the layer's own GeoTIFF or ESRI ASCII file, else a
        GeoTIFF written in ``inputs``."""
        source = layer.source().split("|")[0]
        if (
            layer.providerType() == "gdal"
            and os.path.isfile(source)
            and source.lower().endswith(DEM_FILES)
        ):
            return os.path.abspath(source)
        path = os.path.join(inputs, "dem.tif")
        raster_writer = QgsRasterFileWriter(path)
        raster_writer.setOutputFormat("GTiff")
        provider = layer.dataProvider()
        pipe = QgsRasterPipe()
        if not pipe.set(provider.clone()):
            raise QgsProcessingException(f"the DEM {layer.name()} cannot be read")
        error = raster_writer.writeRaster(
            pipe,
            provider.xSize(),
            provider.ySize(),
            provider.extent(),
            provider.crs(),
            context.transformContext(),
        )
        if error != QgsRasterFileWriter.NoError:
            raise QgsProcessingException(f"the DEM could not be written to {path} ({error})")
        return path

    def _write_release(self, source, path, crs, context, name_field, frequency_field, buffer):
        """The release areas as polygons in the DEM's CRS, with the attributes ``name`` and
        ``frequency`` (points and lines buffered by ``buffer`` m)."""
        fields = QgsFields()
        if name_field:
            fields.append(QgsField("name", QVariant.String))
        if frequency_field:
            fields.append(QgsField("frequency", QVariant.Double))
        created = writer(path, "release", fields, QgsWkbTypes.MultiPolygon, crs, context)
        transform = to_crs(source, crs, context)
        for index, feature in enumerate(source.getFeatures(), start=1):
            geometry = feature.geometry()
            if geometry.isNull() or geometry.isEmpty():
                continue
            geometry.transform(transform)
            if geometry.type() != QgsWkbTypes.PolygonGeometry:
                geometry = geometry.buffer(buffer, 8)
            geometry.convertToMultiType()
            out = QgsFeature(fields)
            out.setGeometry(geometry)
            if name_field:
                value = feature[name_field]
                out["name"] = f"area_{index}" if value in (None, "") else str(value)
            if frequency_field:
                out["frequency"] = feature[frequency_field]
            created.addFeature(out)
        close(created, path)


def toml_override(key, value):
    """``key="value"``, a command-line override of tumble in TOML syntax."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'{key}="{escaped}"'
