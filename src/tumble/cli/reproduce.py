"""``tumble reproduce``: the numerical examples of the seed papers, figure by figure."""

from __future__ import annotations

import json
from pathlib import Path

PAPERS = {
    "leine2021": (
        "Leine et al. 2021, section 4.3: the 3 x 2 x 1 m cuboid, explicit vs implicit scheme at "
        "dt = 0.01 s for 20 s (Fig. 2-4), the Lyapunov function V(t) and the one-step spectra"
    ),
    "betsch2009": (
        "Betsch & Siebert 2009, section 5: free body (Fig. 1: QUAT.EM conservation at dt = 0.05, "
        "configuration error against dt for QUAT.EM, QUAT.VI, DIR.EM, ALGO.C1, implicit) and "
        "the heavy top in steady precession (Fig. 3-5)"
    ),
}


def add_parser(sub) -> None:
    p = sub.add_parser(
        "reproduce",
        help="recompute the figures of a seed paper (leine2021, betsch2009)",
        description=(
            "Recompute the numerical examples of a seed paper and write each figure as PNG, the "
            "data behind it as CSV, summary.txt and summary.json (what each figure shows, with "
            "the key numbers) and provenance.json. "
            + " ".join(f"{name}: {text}." for name, text in PAPERS.items())
        ),
    )
    p.add_argument("paper", choices=tuple(PAPERS), help="which paper's examples to reproduce")
    p.add_argument("--out", default=None, help="output directory (default out/reproduce/PAPER)")
    p.set_defaults(run=run)


def run(args) -> int:
    from tumble.io import ResultDir, write_csv
    from tumble.io.provenance import write_provenance
    from tumble.validation.betsch2009 import betsch2009
    from tumble.validation.leine2021 import leine2021
    from tumble.viz.reproduce import plot_reproduction

    if args.paper not in PAPERS:
        raise ValueError(f"unknown paper {args.paper!r}; choose one of {', '.join(PAPERS)}")
    out = args.out or f"out/reproduce/{args.paper}"
    if Path(out).exists() and not Path(out).is_dir():
        raise ValueError(f"--out {out} exists and is not a directory")
    result = leine2021() if args.paper == "leine2021" else betsch2009()
    with ResultDir(out) as stage:
        for name, columns in result.tables.items():
            write_csv(stage / f"{name}.csv", columns)
        plot_reproduction(result, stage)
        (stage / "summary.json").write_text(
            json.dumps(result.summary(), indent=2, allow_nan=False) + "\n"
        )
        text = result.summary_text()
        (stage / "summary.txt").write_text(text)
        write_provenance(
            stage, config={"paper": args.paper, **result.config}, timings=result.timings
        )
    print(text)
    print(f"wrote {out}/")
    return 0
