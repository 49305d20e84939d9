"""The errors tumble raises about its inputs, in one family (as ``rasterio.errors``).

A caller catches :class:`TumbleError` to handle every refused input (a configuration, a data
file) without catching tumble's bugs. The errors about a value are also ``ValueError`` s, so
code written against the plain ``ValueError`` of earlier versions keeps working::

    TumbleError
    +-- ConfigError (also ValueError)     a configuration value: carries its key
    +-- DataError (also ValueError)       an input data file that cannot be read or used
        +-- DemError                      a DEM: in degrees or feet, nodata, a point off it

The command line reports any :class:`TumbleError` as one line ``tumble <command>: error:
<message>`` and exit status 2, without a traceback.
"""

from __future__ import annotations

import re


class TumbleError(Exception):
    """Base of every error tumble raises about its inputs."""


class ConfigError(TumbleError, ValueError):
    """A configuration value is missing, of the wrong type, out of range or inconsistent.

    ``key`` is the dotted configuration key it is about (``"release.height"``, ``"soil.mu_min"``,
    ``"barrier.0"``), or None when the problem is not one key's (a malformed file). The message
    names the key: one that does not already contain it (as a whole dotted name, not as part of
    a longer one) is prefixed with ``"<key>: "``.
    """

    def __init__(self, message: str, key: str | None = None) -> None:
        self.key = key
        if key is not None and not names_key(message, key):
            message = f"{key}: {message}"
        super().__init__(message)


def names_key(message: str, key: str) -> bool:
    """Whether ``message`` contains the dotted ``key`` as a whole name: ``"soil"`` is named in
    ``"soil mu_max must be ..."`` but not in ``"soil.map ..."`` nor in ``"topsoil ..."``."""
    return re.search(rf"(?<![\w.]){re.escape(key)}(?!\w|\.\w)", message) is not None


class DataError(TumbleError, ValueError):
    """An input data file (raster, vector file, mesh, point list) cannot be read, or holds
    data tumble cannot use; the message names the file."""


class DemError(DataError):
    """A DEM cannot be used: its CRS is in degrees or feet, its grid is rotated or degenerate,
    its nodata leaves no cell to simulate on, or a point lies outside it or in one of its
    holes."""
