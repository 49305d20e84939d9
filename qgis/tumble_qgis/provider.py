"""The Processing provider ``tumble`` and its setting, the path of the ``tumble`` command."""

import os

from qgis.core import QgsProcessingProvider
from qgis.PyQt.QtGui import QIcon

from .barriers_replay import BarriersReplay
from .compare_runs import CompareRuns
from .rockfall_run import RockfallRun
from .settings import TUMBLE_COMMAND
from .sources_at import SourcesAt

ICON = os.path.join(os.path.dirname(__file__), "icon.svg")


class TumbleProvider(QgsProcessingProvider):
    def id(self):
        return "tumble"

    def name(self):
        return "tumble"

    def longName(self):
        return "tumble rockfall simulation"

    def icon(self):
        return QIcon(ICON)

    def svgIconPath(self):
        return ICON

    def load(self):
        try:
            from processing.core.ProcessingConfig import ProcessingConfig, Setting
        except ImportError:
            # without the Processing plugin's settings: TUMBLE_COMMAND, then PATH
            return super().load()
        ProcessingConfig.settingIcons[self.name()] = self.icon()
        ProcessingConfig.addSetting(
            Setting(
                self.name(),
                TUMBLE_COMMAND,
                "tumble command (empty: TUMBLE_COMMAND, then PATH)",
                "",
                valuetype=Setting.FILE,
            )
        )
        ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self):
        try:
            from processing.core.ProcessingConfig import ProcessingConfig
        except ImportError:
            return
        ProcessingConfig.removeSetting(TUMBLE_COMMAND)

    def loadAlgorithms(self):
        for algorithm in (RockfallRun(), BarriersReplay(), SourcesAt(), CompareRuns()):
            self.addAlgorithm(algorithm)
