"""The files of a finished run of ``tumble rockfall run`` that the algorithm returns, and the
QML style of each (``styles/``, also usable without the plugin: Layer Properties > Style > Load
Style). No QGIS import here."""

import json
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


#: the difference rasters of ``tumble rockfall compare`` (B minus A): output name -> (file in
#: its folder, layer name with its unit, style); the zone change only when both runs were zoned
DELTA_RASTERS = {
    "DELTA_REACH_PROBABILITY": (
        "rasters/delta_reach_probability.tif",
        "reach probability change, B minus A",
        "delta_reach_probability.qml",
    ),
    "DELTA_KINETIC_ENERGY_P95": (
        "rasters/delta_kinetic_energy_p95.tif",
        "kinetic energy p95 change, B minus A (kJ)",
        "delta_kinetic_energy.qml",
    ),
    "DELTA_HAZARD_ZONE": (
        "rasters/delta_hazard_zone.tif",
        "hazard zone change, B minus A (zone steps)",
        "delta_hazard_zone.qml",
    ),
}


def compare_outputs(folder):
    """``{output name: (path, layer name, style path, True)}`` of the difference rasters that
    the comparison in ``folder`` wrote (those its ``summary.json`` names: a folder written to
    again may keep a file of an earlier comparison)."""
    with open(os.path.join(folder, "summary.json"), encoding="utf-8") as file:
        written = set(json.load(file)["rasters"])
    found = {}
    for name, (relative, title, style) in DELTA_RASTERS.items():
        path = os.path.join(folder, *relative.split("/"))
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem in written and os.path.isfile(path):
            found[name] = (path, title, os.path.join(STYLES, style), True)
    return found


#: the verdicts of a barrier line (``barrier_lines.qml`` colours them)
VERIFIED = "verified"
NOT_VERIFIED = "not verified"
NO_VERDICT = "no verdict"


def verdict(barrier):
    """The UNI 11211-4 verification of a net as tumble judged it (``design.energy_ok`` and
    ``design.height_ok`` of an entry of ``barriers.json``): ``verified`` when both hold, ``not
    verified`` when either fails, ``no verdict`` when neither was judged (an observation line,
    a net without height or capacity, no rock crossing). A net judged on one of the two only
    is verified on that one."""
    design = barrier.get("design") or {}
    checks = [design.get(key) for key in ("energy_ok", "height_ok")]
    judged = [check for check in checks if check is not None]
    if not judged:
        return NO_VERDICT
    return VERIFIED if all(judged) else NOT_VERIFIED


#: the fields of a barrier line in ``barrier_lines.gpkg``: name -> (type, what it is)
BARRIER_FIELDS = {
    "name": ("text", "the barrier's name"),
    "kind": ("text", "net (height and capacity) or line (observation)"),
    "verdict": ("text", "UNI 11211-4: verified, not verified or no verdict"),
    "rocks_crossing": ("integer", "replayed rocks crossing it downslope"),
    "fraction_crossing": ("real", "share of the replayed rocks crossing it downslope"),
    "energy_p95_kJ": ("real", "95th percentile kinetic energy at the line, kJ"),
    "passing_height_p95_m": ("real", "95th percentile passing height, m"),
    "E_d_kJ": ("real", "UNI 11211-4 design energy, kJ"),
    "h_d_m": ("real", "UNI 11211-4 design passing height, m"),
    "required_height_m": ("real", "h_d + f_min, m"),
    "height_m": ("real", "net height, m"),
    "capacity_kJ": ("real", "net capacity, kJ"),
    "capacity_design_kJ": ("real", "capacity / gamma_E, kJ"),
    "energy_ok": ("integer", "E_d <= capacity / gamma_E (1 yes, 0 no, null not judged)"),
    "height_ok": ("integer", "height >= h_d + f_min (1 yes, 0 no, null not judged)"),
    "overtopping_probability": ("real", "share of crossing rocks above the net"),
    "capacity_exceedance_probability": ("real", "share of crossing rocks above its capacity"),
}


def barrier_row(barrier):
    """The values of :data:`BARRIER_FIELDS` of one entry of ``barriers.json``."""
    design = barrier.get("design") or {}

    def flag(value):
        return None if value is None else int(bool(value))

    return {
        "name": barrier["name"],
        "kind": barrier.get("kind"),
        "verdict": verdict(barrier),
        "rocks_crossing": barrier.get("rocks_crossing"),
        "fraction_crossing": barrier.get("fraction_crossing"),
        "energy_p95_kJ": (barrier.get("kinetic_energy_kJ") or {}).get("p95"),
        "passing_height_p95_m": (barrier.get("passing_height_m") or {}).get("p95"),
        "E_d_kJ": design.get("E_d_kJ"),
        "h_d_m": design.get("h_d_m"),
        "required_height_m": design.get("required_height_m"),
        "height_m": barrier.get("height_m"),
        "capacity_kJ": barrier.get("capacity_kJ"),
        "capacity_design_kJ": design.get("capacity_design_kJ"),
        "energy_ok": flag(design.get("energy_ok")),
        "height_ok": flag(design.get("height_ok")),
        "overtopping_probability": barrier.get("overtopping_probability"),
        "capacity_exceedance_probability": barrier.get("capacity_exceedance_probability"),
    }


def toml_text(value):
    """A TOML string, number or array of numbers (the values of a ``[[barrier]]`` table)."""
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_text(item) for item in value) + "]"
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"{value} is not a finite number")
    return repr(number)


def barriers_toml(entries):
    """A barriers file of tumble (``[[barrier]]`` tables with ``name``, ``line`` and, when
    given, ``height``, ``capacity`` and ``uphill``) from dicts of those keys."""
    tables = []
    for entry in entries:
        rows = ["[[barrier]]"]
        for key in ("name", "line", "height", "capacity", "uphill"):
            if entry.get(key) is not None:
                rows.append(f"{key} = {toml_text(entry[key])}")
        tables.append("\n".join(rows))
    return "\n\n".join(tables) + "\n"


#: the fields a place gets from ``tumble rockfall sources --json``: name -> (type, what it is)
PLACE_FIELDS = {
    "reached": ("integer", "1 when a rock of the run passed the place, else 0"),
    "areas": ("text", "the release areas whose rocks reached it, comma separated"),
    "rocks_reaching": ("integer", "rocks that reached it (runs with output.visits = true)"),
    "reach_probability": ("real", "reach probability there"),
    "reach_probability_high": ("real", "upper end of its 95 % interval"),
    "kinetic_energy_p95_kJ": ("real", "95th percentile kinetic energy there, kJ"),
    "kinetic_energy_max_kJ": ("real", "largest kinetic energy there, kJ"),
    "energy_line_angle_deg": ("real", "smallest energy-line angle there, deg"),
    "hazard_zone": ("integer", "hazard zone (0 none, 1 yellow, 2 blue, 3 red)"),
}


def place_row(record):
    """The values of :data:`PLACE_FIELDS` of the record of one place."""
    values = record.get("values") or {}
    rocks = record.get("rocks")
    zone = values.get("hazard_zone")
    return {
        "reached": int(bool(record["reached"])),
        "areas": ", ".join(source["name"] for source in record.get("sources") or []),
        "rocks_reaching": None if rocks is None else len(rocks),
        "reach_probability": values.get("reach_probability"),
        "reach_probability_high": values.get("reach_probability_high"),
        "kinetic_energy_p95_kJ": values.get("kinetic_energy_p95"),
        "kinetic_energy_max_kJ": values.get("kinetic_energy_max"),
        "energy_line_angle_deg": values.get("energy_line_angle"),
        "hazard_zone": None if zone is None else int(zone),
    }


#: the fields of a rock that reached a place (``rocks`` of the record)
ROCK_FIELDS = {
    "place": ("integer", "the feature id of the place"),
    "rock": ("integer", "the rock's number in the run"),
    "source": ("text", "its release area"),
    "kinetic_energy_kJ": ("real", "its largest kinetic energy at the place, kJ"),
    "velocity_ms": ("real", "its largest speed at the place, m/s"),
    "jump_height_m": ("real", "its largest jump height at the place, m"),
    "energy_line_angle_deg": ("real", "its smallest energy-line angle there, deg"),
}
