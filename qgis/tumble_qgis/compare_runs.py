"""``tumble:compare_runs``: ``tumble rockfall compare`` on two finished runs of one DEM grid
(a site with and without a net or a forest): the difference rasters B minus A, styled on
diverging ramps (``styles/delta_*.qml``), with the comparison's report and tables in the output
folder."""

import os

from qgis.core import (
    QgsProcessingOutputFile,
    QgsProcessingOutputRasterLayer,
    QgsProcessingParameterFolderDestination,
)

from . import results
from .algorithm import TumbleAlgorithm


class CompareRuns(TumbleAlgorithm):
    RUN_A = "RUN_A"
    RUN_B = "RUN_B"
    OUTPUT = "OUTPUT"
    REPORT = "REPORT"

    def name(self):
        return "compare_runs"

    def displayName(self):
        return "Compare two runs"

    def shortHelpString(self):
        return (
            "Runs tumble rockfall compare on two finished run folders of the same DEM grid: "
            "the difference rasters B minus A of the reach probability, of the 95th "
            "percentile kinetic energy and, when both runs were zoned, of the hazard zone "
            "(red where B is more exposed, blue where less; nodata where neither run "
            "reached), the configuration keys that differ, and report.html in the output "
            "folder. Runs on different grids are refused."
        )

    def createInstance(self):
        return CompareRuns()

    def initAlgorithm(self, config=None):
        for key, title in ((self.RUN_A, "Run folder A"), (self.RUN_B, "Run folder B")):
            self.add_run_folder(key, title)
        self.addParameter(QgsProcessingParameterFolderDestination(self.OUTPUT, "Comparison"))
        for name, (_path, title, _style) in results.DELTA_RASTERS.items():
            self.addOutput(QgsProcessingOutputRasterLayer(name, title))
        self.addOutput(QgsProcessingOutputFile(self.REPORT, "report.html"))

    def processAlgorithm(self, parameters, context, feedback):
        tumble = self.tumble_command(feedback)
        runs = [self.run_folder(parameters, key, context) for key in (self.RUN_A, self.RUN_B)]
        out = os.path.abspath(self.parameterAsString(parameters, self.OUTPUT, context))
        self.run_tumble([tumble, "rockfall", "compare", *runs, "--out", out], feedback)
        found = results.compare_outputs(out)
        results.place_styles(found)
        answer = {self.OUTPUT: out, self.REPORT: os.path.join(out, "report.html")}
        return {**answer, **self.load_styled(found, context, out)}
