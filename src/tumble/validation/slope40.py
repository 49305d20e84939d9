"""The ensemble comparison of Leine et al. 2021 (seed 000), section 6: published numbers and the
side-by-side table of two runs on the ``slope40`` scenario.

:data:`PUBLISHED_SLOPE40` holds Table 2 (mean and standard deviation of the kinetic energy,
translational and rotational velocity and jump height over 1000 EOTA221 rocks, for the explicit
and the implicit scheme) and the RAMMS run times of Table 1. :func:`compare_table` builds the rows
that ``tumble rockfall compare`` writes, from two ``summary.json`` of
:mod:`tumble.rockfall.ensemble.reduce`. The paper does not define its statistics;
:mod:`tumble.validation.slope40_table2` computes the candidate definitions
(``docs/slope40_table2.md``).
"""

from __future__ import annotations

from typing import Any

#: Leine et al. 2021 (seed 000), Table 2: 1000 EOTA221 rocks of 780 kg on the idealised 40 deg
#: slope, random initial orientation, dt = 0.002 s; mean and standard deviation, and the RAMMS
#: run time (Table 1, one desktop computer)
PUBLISHED_SLOPE40: dict[str, dict[str, Any]] = {
    "explicit": {
        "kinetic_energy_kJ": (168.6, 113.8),
        "velocity_ms": (17.88, 7.4),
        "rotational_velocity_rps": (4.12, 1.8),
        "jump_height_m": (1.93, 1.8),
        "wall_time_s": 74.3,
    },
    "implicit": {
        "kinetic_energy_kJ": (188.0, 131.7),
        "velocity_ms": (17.75, 7.7),
        "rotational_velocity_rps": (4.77, 1.9),
        "jump_height_m": (1.40, 1.1),
        "wall_time_s": 161.5,
    },
}


#: what a run on ``slope40`` reproduces and why its reach differs from field slopes: the words
#: of its energy-line record (:mod:`tumble.rockfall.hazard.energy_line`) and its first screen
REACH = (
    "slope40 reproduces the ensembles of Leine et al. 2021, section 6 (1000 EOTA221 rocks of "
    "780 kg, Tables 1-3): an idealised 40 degree plane, 150 m long, meeting a flat run-out of "
    "500 m at a sharp kink, with the paper's soil (lu2019: Lu et al. 2019, without rolling "
    "resistance) unless the configuration names another. The smooth plane and the bare flat "
    "have no talus, roughness, vegetation or counter-slope, and the paper's soil no rolling "
    "resistance, so the rocks roll far out over the flat, to energy-line angles well below "
    "those of field slopes (27.5 degrees and more, Evans & Hungr 1993); that comparison and "
    "its warning belong to runs on real terrain (a DEM)"
)


TABLE_ROWS = (
    ("kinetic_energy_kJ", "kinetic energy (kJ)"),
    ("velocity_ms", "translational velocity (m/s)"),
    ("rotational_velocity_rps", "rotational velocity (rot/s)"),
    ("jump_height_m", "jump height (m)"),
)


def _fmt(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "n/a"
    return f"{mean:.2f} +- {std:.2f}" if std is not None else f"{mean:.2f}"


def published_applies(summary: dict) -> bool:
    """Whether Table 2 was published for this run's set-up: the ``slope40`` scenario."""
    return summary.get("scenario") == "slope40"


def compare_table(a: dict, b: dict, labels: tuple[str, str]) -> list[dict[str, Any]]:
    """Rows of the comparison of two run summaries ``a`` and ``b`` (path statistics as in
    Table 2, then more); the published values beside them only when both runs are on the
    scenario they were published for (:func:`published_applies`). The outcomes of the rocks and
    the barrier lines are added by :mod:`tumble.pipeline.compare`."""
    published = published_applies(a) and published_applies(b)
    rows = []
    pub_e, pub_i = PUBLISHED_SLOPE40["explicit"], PUBLISHED_SLOPE40["implicit"]
    for key, name in TABLE_ROWS:
        pa_, pb_ = a[key]["path"], b[key]["path"]
        rows.append(
            {
                "quantity": name,
                labels[0]: _fmt(pa_["mean"], pa_["std"]),
                labels[1]: _fmt(pb_["mean"], pb_["std"]),
            }
        )
        if published:
            rows[-1]["published explicit"] = _fmt(pub_e[key][0], pub_e[key][1])
            rows[-1]["published implicit"] = _fmt(pub_i[key][0], pub_i[key][1])
    extra = (
        (
            "per-rock max kinetic energy (kJ)",
            lambda s: _fmt(
                s["kinetic_energy_kJ"]["rock_max"]["mean"],
                s["kinetic_energy_kJ"]["rock_max"]["std"],
            ),
        ),
        ("run-out (m)", lambda s: _fmt(s["runout_m"]["mean"], s["runout_m"]["std"])),
        ("run-out p95 (m)", lambda s: _fmt(s["runout_m"]["p95"], None)),
        ("lateral spread std (m)", lambda s: _fmt(s["lateral_spread_m"]["std"], None)),
        ("lateral spread p95 (m)", lambda s: _fmt(s["lateral_spread_m"]["p95"], None)),
        ("rocks", lambda s: str(s["n_rocks"])),
        ("wall time (s)", lambda s: _fmt(s["wall_time_s"], None)),
        (
            "rock-steps per second",
            lambda s: f"{s['rock_steps_per_s']:.3g}" if s.get("rock_steps_per_s") else "n/a",
        ),
    )
    for name, value in extra:
        row = {"quantity": name, labels[0]: value(a), labels[1]: value(b)}
        if published and name == "wall time (s)":
            row["published explicit"] = f"{pub_e['wall_time_s']:.1f} (RAMMS, 1000 rocks)"
            row["published implicit"] = f"{pub_i['wall_time_s']:.1f} (RAMMS, 1000 rocks)"
        elif published:
            row["published explicit"] = row["published implicit"] = ""
        rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    """The rows as a Markdown table."""
    names = list(rows[0])
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(str(r[n]) for n in names) + " |" for r in rows]
    return "\n".join(lines) + "\n"
