"""``tumble:sources_at``: ``tumble rockfall sources`` for every feature of a point or polygon
layer: which release areas and rocks of a finished run reach it.

Each point is given to the command as ``--at X,Y`` in the run's DEM CRS, each polygon as a
GeoPackage of that polygon alone (``--polygon``; tumble takes the pixels it touches). The
command's JSON record (``--json``) comes back as the fields of :data:`results.PLACE_FIELDS` on
the place, and every rock that reached a place (runs with ``output.visits = true``) as a row of
the table ``ROCKS``.
"""

import json
import os

from qgis.core import (
    QgsFeature,
    QgsFeatureSink,
    QgsField,
    QgsFields,
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFeatureSource,
    QgsProcessingUtils,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QVariant

from . import results
from .algorithm import TumbleAlgorithm, close, to_crs, writer

TYPES = {"text": QVariant.String, "integer": QVariant.Int, "real": QVariant.Double}
#: exit status of ``tumble rockfall sources`` when no rock reached the place (not an error)
NOT_REACHED = 1


def _fields(table, first=None):
    fields = QgsFields() if first is None else QgsFields(first)
    for name, (kind, _meaning) in table.items():
        if fields.indexOf(name) < 0:
            fields.append(QgsField(name, TYPES[kind]))
    return fields


class SourcesAt(TumbleAlgorithm):
    RUN = "RUN"
    PLACES = "PLACES"
    OUTPUT = "OUTPUT"
    ROCKS = "ROCKS"

    def name(self):
        return "sources_at"

    def displayName(self):
        return "Sources reaching places"

    def shortHelpString(self):
        return (
            "Runs tumble rockfall sources on a finished run folder for every point or polygon "
            "of PLACES (a house, a road section): whether a rock of the run reached it, which "
            "release areas, the reach probability with the upper end of its 95 % interval, "
            "the energies and hazard zone there (over a polygon the largest over its pixels). "
            "ROCKS lists every rock that reached a place with its energy, speed and jump "
            "height there, for runs with output.visits = true. A place off the DEM is refused "
            "with tumble's sentence."
        )

    def createInstance(self):
        return SourcesAt()

    def initAlgorithm(self, config=None):
        self.add_run_folder(self.RUN)
        self.addParameter(
            QgsProcessingParameterFeatureSource(
                self.PLACES,
                "Places (points or polygons)",
                [QgsProcessing.TypeVectorPoint, QgsProcessing.TypeVectorPolygon],
            )
        )
        self.addParameter(
            QgsProcessingParameterFeatureSink(self.OUTPUT, "Places with their sources")
        )
        self.addParameter(
            QgsProcessingParameterFeatureSink(
                self.ROCKS, "Rocks reaching the places", QgsProcessing.TypeVector
            )
        )

    def processAlgorithm(self, parameters, context, feedback):
        tumble = self.tumble_command(feedback)
        run, crs, source = self.layer_on_run(
            parameters, self.RUN, self.PLACES, "places layer", context
        )
        fields = _fields(results.PLACE_FIELDS, source.fields())
        sink, dest = self.parameterAsSink(
            parameters, self.OUTPUT, context, fields, source.wkbType(), source.sourceCrs()
        )
        rock_fields = _fields(results.ROCK_FIELDS)
        rock_sink, rock_dest = self.parameterAsSink(
            parameters, self.ROCKS, context, rock_fields, QgsWkbTypes.NoGeometry
        )
        transform = to_crs(source, crs, context)
        folder = QgsProcessingUtils.tempFolder()
        total = max(source.featureCount(), 1)
        for done, feature in enumerate(source.getFeatures()):
            if feedback.isCanceled():
                raise QgsProcessingException("cancelled")
            geometry = feature.geometry()
            if geometry.isNull() or geometry.isEmpty():
                continue
            geometry.transform(transform)
            argv = [tumble, "rockfall", "sources", run, "--json"]
            argv += self._place(feature.id(), geometry, folder, crs, context)
            outcome = self.run_tumble(argv, feedback, ok=(0, NOT_REACHED), capture_stdout=True)
            try:
                record = json.loads(outcome.stdout)
            except ValueError:
                raise QgsProcessingException(
                    f"tumble rockfall sources printed no JSON record for feature {feature.id()}"
                ) from None
            out = QgsFeature(fields)
            out.setGeometry(feature.geometry())
            for field in source.fields():
                out[field.name()] = feature[field.name()]
            for name, value in results.place_row(record).items():
                out[name] = value
            sink.addFeature(out, QgsFeatureSink.FastInsert)
            for rock in record.get("rocks") or []:
                row = QgsFeature(rock_fields)
                row["place"] = feature.id()
                for name in results.ROCK_FIELDS:
                    if name != "place":
                        row[name] = rock.get(name)
                rock_sink.addFeature(row, QgsFeatureSink.FastInsert)
            feedback.pushInfo(f"feature {feature.id()}: {record['place']}")
            feedback.setProgress(100.0 * (done + 1) / total)
        return {self.OUTPUT: dest, self.ROCKS: rock_dest}

    def _place(self, fid, geometry, folder, crs, context):
        """The command-line arguments of one place, in the DEM's CRS."""
        if geometry.type() == QgsWkbTypes.PointGeometry:
            points = [part.asPoint() for part in geometry.asGeometryCollection()]
            if len(points) != 1:
                raise QgsProcessingException(
                    f"feature {fid} holds {len(points)} points: give one point per feature"
                )
            # one word: a negative X must not read as an option
            return [f"--at={points[0].x()!r},{points[0].y()!r}"]
        path = os.path.join(folder, f"place_{fid}.gpkg")
        geometry.convertToMultiType()
        created = writer(path, "place", QgsFields(), QgsWkbTypes.MultiPolygon, crs, context)
        feature = QgsFeature()
        feature.setGeometry(geometry)
        created.addFeature(feature)
        close(created, path)
        return ["--polygon", path]
