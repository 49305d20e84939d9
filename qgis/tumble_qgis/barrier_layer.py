"""Barrier lines drawn in QGIS as a barriers file of tumble: one ``[[barrier]]`` table per line
(a multi-line feature's parts one by one) with its points in the DEM's CRS and, when the layer
has them, the fields ``name``, ``height`` (m), ``capacity`` (kJ; with ``height`` a net) and
``uphill`` (``left``/``right``: the side the rocks come from, seen along the line), in any case.
A line without a name is ``line_<k>``, ``k`` counting the lines in the layer's order."""

from qgis.core import QgsProcessingException, QgsWkbTypes

from . import results
from .algorithm import to_crs

#: the attributes read from a barrier layer (matched without regard to case)
KEYS = ("name", "height", "capacity", "uphill")


def _value(feature, field):
    if field is None:
        return None
    value = feature[field]
    if value is None or (hasattr(value, "isNull") and value.isNull()) or value == "":
        return None
    return value


def barrier_entries(source, crs, context):
    """``[(entry, geometry)]``: the ``[[barrier]]`` entry of every line of the feature source
    ``source`` and its geometry, both in ``crs``."""
    names = {field.name().lower(): field.name() for field in source.fields()}
    fields = {key: names.get(key) for key in KEYS}
    transform = to_crs(source, crs, context)
    out = []
    for feature in source.getFeatures():
        geometry = feature.geometry()
        if geometry.isNull() or geometry.isEmpty():
            continue
        if geometry.type() != QgsWkbTypes.LineGeometry:
            raise QgsProcessingException(f"barrier feature {feature.id()} is not a line")
        geometry.transform(transform)
        parts = geometry.asGeometryCollection()
        given = _value(feature, fields["name"])
        for index, part in enumerate(parts, start=1):
            name = f"line_{len(out) + 1}" if given is None else str(given)
            if given is not None and len(parts) > 1:
                name = f"{name} ({index})"
            entry = {
                "name": name,
                "line": [[point.x(), point.y()] for point in part.asPolyline()],
            }
            for key in ("height", "capacity"):
                value = _value(feature, fields[key])
                if value is not None:
                    try:
                        entry[key] = float(value)
                    except (TypeError, ValueError):
                        raise QgsProcessingException(
                            f"barrier {name!r}: {key} must be a number, got {value!r}"
                        ) from None
            uphill = _value(feature, fields["uphill"])
            if uphill is not None:
                entry["uphill"] = str(uphill).strip().lower()
            out.append((entry, part))
    if not out:
        raise QgsProcessingException("the barrier layer holds no line")
    return out


def write_barriers_file(entries, path):
    """Write the barriers file of ``entries`` (from :func:`barrier_entries`) to ``path``."""
    with open(path, "w", encoding="utf-8") as file:
        file.write(results.barriers_toml([entry for entry, _geometry in entries]))
