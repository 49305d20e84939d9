"""tumble for QGIS: a Processing provider that runs ``tumble rockfall run`` from layers and loads
its results styled.

The plugin imports nothing of tumble: it runs the installed ``tumble`` command in a subprocess
(:mod:`tumble_qgis.command`) and reads the run folder it writes, so QGIS's own Python needs none
of tumble's dependencies.
"""


def classFactory(iface):
    """The plugin object QGIS loads (QGIS desktop and ``qgis_process``)."""
    from .plugin import TumblePlugin

    return TumblePlugin(iface)
