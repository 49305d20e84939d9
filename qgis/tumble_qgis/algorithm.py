"""What every algorithm of the provider does the same way: find the ``tumble`` command, run it
in a subprocess with its progress and messages in the Processing feedback (cancel honoured,
tumble's own error sentence as the error, never a traceback), write layers to files tumble
reads, and load the results with their QML styles, grouped per folder in the layer tree."""

import os

from qgis.core import (
    QgsCoordinateTransform,
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingLayerPostProcessorInterface,
    QgsProcessingParameterFile,
    QgsRasterLayer,
    QgsVectorFileWriter,
)

from . import command
from .settings import tumble_setting


class _Style(QgsProcessingLayerPostProcessorInterface):
    """Applies a result's QML style when the layer is loaded into the project."""

    def __init__(self, style):
        super().__init__()
        self.style = style

    def postProcessLayer(self, layer, context, feedback):
        if layer is not None and layer.isValid():
            layer.loadNamedStyle(self.style)
            layer.triggerRepaint()


class TumbleAlgorithm(QgsProcessingAlgorithm):
    """An algorithm that runs one ``tumble`` command (subclasses say which)."""

    def __init__(self):
        super().__init__()
        # the style post-processors must live as long as the algorithm's results are loaded
        self._styles = []

    def tumble_command(self, feedback):
        """The path of a usable ``tumble``, or one message with the install command."""
        try:
            tumble = command.find_tumble(tumble_setting())
            version = command.check_tumble(tumble)
        except command.TumbleNotFound as err:
            raise QgsProcessingException(str(err)) from None
        feedback.pushInfo(f"tumble {command.version_text(version)}: {tumble}")
        return tumble

    def run_tumble(self, argv, feedback, *, cwd=None, ok=(0,), capture_stdout=False, resume=""):
        """Run ``argv`` with its lines in the log and its percentage as the progress. A cancel
        interrupts it (``resume`` says how the interrupted work is finished); an exit status
        not in ``ok`` raises tumble's own error sentence."""
        feedback.pushCommandInfo(" ".join(quote(part) for part in argv))

        def on_line(line):
            percent = command.progress_of(line)
            if percent is not None:
                feedback.setProgress(percent)
            if line.startswith("warning:"):
                feedback.pushWarning(line)
            elif command.ERROR.match(line):
                feedback.reportError(line)
            else:
                feedback.pushInfo(line)

        outcome = command.run_streaming(
            argv, on_line, feedback.isCanceled, cwd=cwd, capture_stdout=capture_stdout
        )
        if outcome.cancelled:
            raise QgsProcessingException("cancelled" + (f": {resume}" if resume else ""))
        if outcome.returncode not in ok:
            what = " ".join(os.path.basename(part) for part in argv[:3])
            raise QgsProcessingException(
                outcome.error or f"{what} failed (exit status {outcome.returncode})"
            )
        return outcome

    def add_run_folder(self, key, title="Run folder"):
        """A parameter ``key``: the folder of a finished ``tumble rockfall run``."""
        self.addParameter(
            QgsProcessingParameterFile(key, title, behavior=QgsProcessingParameterFile.Folder)
        )

    def run_folder(self, parameters, key, context):
        """The absolute path of the run folder of parameter ``key``."""
        return os.path.abspath(self.parameterAsFile(parameters, key, context))

    def layer_on_run(self, parameters, run_key, layer_key, what, context):
        """``(run folder, CRS of its DEM, feature source of layer_key)`` for an algorithm that
        gives a layer to a command on a finished run (tumble reads it in the DEM's CRS); an
        unreadable layer is an error naming ``what``."""
        run = self.run_folder(parameters, run_key, context)
        crs = run_dem(run).crs()
        source = self.parameterAsSource(parameters, layer_key, context)
        if source is None:
            raise QgsProcessingException(f"the {what} cannot be read")
        return run, crs, source

    def load_styled(self, found, context, folder):
        """Load the files of ``found`` (``{output: (path, layer name, style, is raster)}``)
        into the project when the algorithm completes, each with its style, in the group
        ``tumble <folder name>``; returns ``{output: path}``."""
        answer = {}
        group = os.path.basename(os.path.abspath(folder).rstrip(os.sep))
        self._styles = []
        for name, (path, title, style, _raster) in found.items():
            answer[name] = path
            details = QgsProcessingContext.LayerDetails(title, context.project(), name)
            if hasattr(details, "groupName"):
                details.groupName = f"tumble {group}"
            processor = _Style(style)
            self._styles.append(processor)
            details.setPostProcessor(processor)
            context.addLayerToLoadOnCompletion(path, details)
        return answer


def run_dem(run):
    """The DEM layer of a finished run folder (``rasters/dem.tif``): its CRS is the one tumble
    reads places and lines in."""
    path = os.path.join(run, "rasters", "dem.tif")
    if not os.path.isfile(path):
        raise QgsProcessingException(
            f"{run} is not a finished tumble rockfall run folder: it holds no rasters/dem.tif"
        )
    layer = QgsRasterLayer(path, "dem")
    if not layer.isValid():
        raise QgsProcessingException(f"the DEM of the run, {path}, cannot be read")
    return layer


def to_crs(source, crs, context):
    """The transform from the CRS of the feature source ``source`` to ``crs``."""
    return QgsCoordinateTransform(source.sourceCrs(), crs, context.transformContext())


def writer(path, layer, fields, wkb, crs, context):
    """A GeoPackage writer of one layer (an earlier file at ``path`` is replaced)."""
    if os.path.exists(path):
        os.remove(path)
    options = QgsVectorFileWriter.SaveVectorOptions()
    options.driverName = "GPKG"
    options.layerName = layer
    created = QgsVectorFileWriter.create(
        path, fields, wkb, crs, context.transformContext(), options
    )
    if created.hasError() != QgsVectorFileWriter.NoError:
        raise QgsProcessingException(f"{path} cannot be written: {created.errorMessage()}")
    return created


def close(created, path):
    """Finish the file of a :func:`writer` (a writer writes its file when it is deleted)."""
    error = created.hasError()
    del created
    if error != QgsVectorFileWriter.NoError:
        raise QgsProcessingException(f"{path} could not be written")


def quote(part):
    return f"'{part}'" if any(c in part for c in " \"'") else part
