"""``tumble:barriers_replay``: ``tumble rockfall barriers`` on a finished run and barrier lines
drawn in QGIS: the design values of every line, without simulating again.

The lines are written as a barriers file of tumble in the run's DEM CRS
(``<output>_inputs/barriers.toml``, :mod:`tumble_qgis.barrier_layer`), the command replays them
on the trajectories the run kept and writes ``barriers.json`` to the output folder, and the
lines come back as ``barrier_lines.gpkg`` beside it: each line with its crossing statistics,
UNI 11211-4 design values and verdict (:func:`tumble_qgis.results.barrier_row`), styled by
verdict (``styles/barrier_lines.qml``).
"""

import json
import os

from qgis.core import (
    QgsFeature,
    QgsField,
    QgsFields,
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputFile,
    QgsProcessingOutputVectorLayer,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterFolderDestination,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QVariant

from . import results
from .algorithm import TumbleAlgorithm, close, writer
from .barrier_layer import barrier_entries, write_barriers_file

#: the file of the lines with their design values, in the output folder
LINES_FILE = "barrier_lines.gpkg"
TYPES = {"text": QVariant.String, "integer": QVariant.Int, "real": QVariant.Double}


class BarriersReplay(TumbleAlgorithm):
    RUN = "RUN"
    LINES = "LINES"
    FIGURES = "FIGURES"
    OUTPUT = "OUTPUT"
    BARRIERS = "BARRIERS"
    REPORT = "REPORT"

    def name(self):
        return "barriers_replay"

    def displayName(self):
        return "Barrier design values (replay)"

    def shortHelpString(self):
        return (
            "Runs tumble rockfall barriers on a finished run folder: the crossings of the "
            "lines of LINES are replayed on the trajectories the run kept (output.trajectories "
            "rocks) without simulating again, and each line gets its crossing statistics and "
            "UNI 11211-4 design values (E_d, h_d) with the run's [design] factors. Fields read "
            "from the layer (any case): name, height (m) and capacity (kJ), which make the "
            "line a net with a verdict (verified: E_d <= capacity / gamma_E and height >= h_d + "
            "f_min), and uphill (left or right, seen along the line: the side the rocks come "
            "from; default the side of the run's release). A net replayed acts at its first "
            "crossing only: the hazard below it needs a new run."
        )

    def createInstance(self):
        return BarriersReplay()

    def initAlgorithm(self, config=None):
        self.add_run_folder(self.RUN)
        self.addParameter(
            QgsProcessingParameterFeatureSource(
                self.LINES, "Barrier lines", [QgsProcessing.TypeVectorLine]
            )
        )
        self.addParameter(
            QgsProcessingParameterBoolean(self.FIGURES, "Write the figures", defaultValue=False)
        )
        self.addParameter(
            QgsProcessingParameterFolderDestination(self.OUTPUT, "Barrier statistics folder")
        )
        self.addOutput(
            QgsProcessingOutputVectorLayer(
                self.BARRIERS, "Barrier lines by verdict", QgsProcessing.TypeVectorLine
            )
        )
        self.addOutput(QgsProcessingOutputFile(self.REPORT, "barriers.json"))

    def processAlgorithm(self, parameters, context, feedback):
        tumble = self.tumble_command(feedback)
        run, crs, source = self.layer_on_run(
            parameters, self.RUN, self.LINES, "barrier line layer", context
        )
        out = os.path.abspath(self.parameterAsString(parameters, self.OUTPUT, context))
        inputs = out.rstrip(os.sep) + "_inputs"
        os.makedirs(inputs, exist_ok=True)
        entries = barrier_entries(source, crs, context)
        lines = os.path.join(inputs, "barriers.toml")
        write_barriers_file(entries, lines)
        argv = [tumble, "rockfall", "barriers", run, "--barriers", lines, "--out", out]
        argv += ["--force"]
        if not self.parameterAsBoolean(parameters, self.FIGURES, context):
            argv += ["--no-figures"]
        self.run_tumble(argv, feedback, cwd=inputs)

        report = os.path.join(out, "barriers.json")
        with open(report, encoding="utf-8") as file:
            replayed = {entry["name"]: entry for entry in json.load(file)["barriers"]}
        path = os.path.join(out, LINES_FILE)
        self._write(path, entries, replayed, crs, context)
        style = os.path.join(results.STYLES, "barrier_lines.qml")
        found = {self.BARRIERS: (path, "barrier lines by verdict", style, False)}
        results.place_styles(found)
        return {self.OUTPUT: out, self.REPORT: report, **self.load_styled(found, context, out)}

    def _write(self, path, entries, replayed, crs, context):
        """The lines with the fields of :data:`results.BARRIER_FIELDS`."""
        fields = QgsFields()
        for name, (kind, _meaning) in results.BARRIER_FIELDS.items():
            fields.append(QgsField(name, TYPES[kind]))
        created = writer(path, "barriers", fields, QgsWkbTypes.LineString, crs, context)
        for entry, geometry in entries:
            barrier = replayed.get(entry["name"])
            if barrier is None:
                raise QgsProcessingException(
                    f"barriers.json holds no line {entry['name']!r}: the output folder is not "
                    "the one this replay wrote"
                )
            feature = QgsFeature(fields)
            feature.setGeometry(geometry)
            for name, value in results.barrier_row(barrier).items():
                feature[name] = value
            created.addFeature(feature)
        close(created, path)
