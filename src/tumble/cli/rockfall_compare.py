"""``tumble rockfall compare DIR_A DIR_B --out DIR``: what changed from run A to run B of one site.

Writes the difference rasters (``rasters/delta_reach_probability.tif``,
``rasters/delta_kinetic_energy_p95.tif`` and, when both runs have zones,
``rasters/delta_hazard_zone.tif``; B minus A), ``summary.json`` with the configuration keys that
differ and the values of the soil presets that differ (a preset whose numbers changed between
the releases of the two runs), ``report.html``, and the table of Leine et al. 2021, Table 2
(``compare.csv``, ``compare.json``, ``compare.md``) with ``envelopes.png``
(:mod:`tumble.pipeline.compare`). Runs on different grids are refused (exit status 2, nothing
written).
"""

from __future__ import annotations


def add_compare_parser(actions) -> None:
    """Register ``compare`` among the actions of ``tumble rockfall``."""
    compare = actions.add_parser(
        "compare",
        help="difference rasters, changed settings and tables of two runs",
        description=(
            "Compare two finished runs on the same DEM grid (a site with and without a net or "
            "forest; the explicit and implicit schemes): difference rasters B minus A of the "
            "reach probability, the 95th percentile kinetic energy and the hazard zone, every "
            "configuration key that differs with both values, every value of a soil preset "
            "that differs (a preset whose numbers changed between releases), a report, and "
            "the table of "
            "Leine et al. 2021, Table 2, with an overlay map of the two spread envelopes."
        ),
    )
    compare.add_argument("run_a", metavar="DIR_A", help="folder of a finished run (A)")
    compare.add_argument("run_b", metavar="DIR_B", help="folder of another finished run (B)")
    compare.add_argument("--out", default="out/rockfall-compare", help="output directory")
    compare.set_defaults(run=compare_command)


def compare_command(args) -> int:
    from tumble.pipeline.compare import compare_runs
    from tumble.validation.slope40 import markdown
    from tumble.viz.report_html import number

    result = compare_runs(args.run_a, args.run_b, args.out)
    print(markdown(result["table"]), end="")
    differences = result["differences"]
    if differences:
        print(f"\nConfiguration keys that differ ({len(differences)}), A -> B:")
        for entry in differences:
            print(f"  {entry['key']}: {_value(entry['a'], number)} -> {_value(entry['b'], number)}")
    values = result["value_differences"]
    if not differences:
        # a preset that took other numbers between releases leaves the configurations equal
        same = "configuration keys" if values else "configuration"
        print(f"\nThe two runs have the same {same}.")
    if values:
        print(f"Values of the soil presets that differ ({len(values)}), A -> B:")
        for entry in values:
            print(f"  {entry['key']}: {_value(entry['a'], number)} -> {_value(entry['b'], number)}")
    for note in result["value_notes"]:
        print(f"note: {note}")
    for name, stats in result["rasters"].items():
        print(
            f"{name}: {stats['cells_increased']} cells up, {stats['cells_decreased']} down, "
            f"change from {number(stats['min'])} to {number(stats['max'])}"
        )
    for warning in result["warnings"]:
        print(f"warning: {warning}")
    print(f"wrote {args.out}/")
    return 0


def _value(value, number) -> str:
    return "(not set)" if value is None else number(value)
