"""``report.html``: one self-contained page of the main job (figures embedded as PNG data)."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

from tumble.io import run_folder as layout

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f2f2f2; } figure { margin: 1em 0; } img { max-width: 100%; }
figcaption { font-size: 0.9em; color: #555; } .note { color: #555; font-size: 0.92em; }
"""


def _image(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _table(rows: list[dict], columns: list[str]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(row.get(c, '')))}</td>" for c in columns) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_report(path: Path, demo_dir: Path, runs: dict[str, Path], compare_dir: Path) -> None:
    """Write the report of ``tumble demo`` from the files it produced."""
    summary = json.loads((demo_dir / "summary.json").read_text())
    compare = json.loads((compare_dir / "compare.json").read_text())
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>tumble demo</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>tumble: free rotation and rockfall, the main job</h1>",
        "<p class='note'>Everything on this page was computed by <code>tumble demo</code>; the "
        "data behind each figure are in the same directory.</p>",
        "<h2>Rockfall on the idealised 40 degree slope</h2>",
        "<p>1000 EOTA221 rocks (780 kg), random uniform initial orientation, dt = 0.002 s, "
        "soil of Lu et al. 2019, released 1.5 m above the slope at x = 10 m "
        "(Leine et al. 2021, section 6). Mean and standard deviation over the saved trajectory "
        "samples of moving rocks, beside the published values of Leine et al. 2021, Table 2. "
        "The exact slope geometry of the paper is not published: ours is 150 m of 40 degree "
        "slope and a 500 m flat run-out, 500 m wide, on which every rock of both schemes "
        "stops. How the published statistics may be defined: docs/slope40_table2.md.</p>",
        _table(compare["rows"], ["quantity", *compare["labels"], *_published(compare["rows"])]),
    ]
    for scheme, run in runs.items():
        parts.append(f"<h3>{html.escape(scheme)} scheme</h3>")
        for name, caption in (
            ("energy_map.png", "maximum kinetic energy over the hillshade, spread envelope"),
            ("profile.png", "altitude and angular velocity of one rock against distance"),
            ("histograms.png", "run-out and energy histograms"),
        ):
            figure = run / layout.FIGURES / name
            if figure.exists():
                parts.append(_image(figure, f"{scheme}: {caption}"))
    envelopes = compare_dir / "envelopes.png"
    if envelopes.exists():
        parts.append(_image(envelopes, "spread envelopes of the two schemes"))
    major = summary["major_axis"]
    parts += [
        "<h2>Free rotation: the intermediate axis theorem and the schemes</h2>",
        f"<p>Leine cuboid (3 x 2 x 1 m, 1 kg) near its major axis, dt = 0.01 s: the explicit "
        f"scheme of RAMMS leaves the major axis (omega_z &lt; 5 rad/s) at t = "
        f"{major['explicit_leaves_major_axis_at_s']:.2f} s and ends spinning about the minor "
        f"axis at omega_x = {major['explicit_final_omega'][0]:.3f} rad/s (predicted "
        f"{major['minor_axis_rate_predicted']:.3f}); the implicit scheme stays within "
        f"{major['implicit_max_deviation_from_major_axis']:.2e} rad/s of (0, 0, 10).</p>",
        _image(demo_dir / "major_axis_omega.png", "angular velocity near the major axis"),
        _image(demo_dir / "intermediate_axis_omega.png", "near the intermediate axis"),
        _image(demo_dir / "major_axis_drift.png", "drift of energy and spin, every scheme"),
        _table(
            [
                {"scheme": k, "fitted order": f"{v:.2f}"}
                for k, v in summary["fitted_orders"].items()
            ],
            ["scheme", "fitted order"],
        ),
        _image(demo_dir / "convergence.png", "attitude error at T = 1 s against dt"),
        "</body></html>",
    ]
    tmp = path.with_name(f".{path.name}.partial")
    tmp.write_text("\n".join(parts))
    tmp.replace(path)


def _published(rows: list[dict]) -> list[str]:
    return [key for key in rows[0] if key.startswith("published")] if rows else []
