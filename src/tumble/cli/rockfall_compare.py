"""``tumble rockfall compare DIR_A DIR_B --out DIR``: two finished runs side by side.

Writes ``compare.csv``, ``compare.json``, ``compare.md`` (the table of Leine et al. 2021, Table 2,
with the published values beside when the runs are slope40's explicit and implicit ensembles) and
``envelopes.png`` (the two spread envelopes over the hillshade).
"""

from __future__ import annotations


def add_compare_parser(actions) -> None:
    """Register ``compare`` among the actions of ``tumble rockfall``."""
    compare = actions.add_parser(
        "compare",
        help="side-by-side table and envelopes of two runs",
        description=(
            "Compare two finished runs (e.g. explicit and implicit): the table of Leine et al. "
            "2021, Table 2, with the published values beside, as CSV, JSON and Markdown, and "
            "an overlay map of the two spread envelopes."
        ),
    )
    compare.add_argument("run_a", metavar="DIR_A", help="folder of a finished run")
    compare.add_argument("run_b", metavar="DIR_B", help="folder of another finished run")
    compare.add_argument("--out", default="out/rockfall-compare", help="output directory")
    compare.set_defaults(run=compare_command)


def compare_command(args) -> int:
    from tumble.pipeline.compare import compare_runs
    from tumble.validation.slope40 import markdown

    rows = compare_runs(args.run_a, args.run_b, args.out)
    print(markdown(rows), end="")
    print(f"wrote {args.out}/")
    return 0
