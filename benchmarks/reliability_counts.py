"""How bad inputs end: the cases of ``tests/reliability/cases.py`` tried against the command line,
the Python API and the web server, counted per surface.

Each case is a bad input and the word its error message must contain. ``clear``: refused with
that word, no traceback, nothing written; ``unclear``: refused but the message lacks the word or
something was written; ``traceback``: an exception escaped or HTTP 500; ``silent``: accepted, a
silent wrong result. ``--list`` prints every case that is not clear.

    python benchmarks/reliability_counts.py [--list]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent.parent / "tests" / "reliability" / "cases.py"


def load_cases():
    spec = importlib.util.spec_from_file_location("reliability_cases", CASES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the cases that are not clear")
    args = parser.parse_args()
    cases = load_cases()
    with cases.scratch() as name:
        root = Path(name)
        outcomes = {
            "cli": [(c.name, cases.run_cli(c, root)) for c in cases.CLI_CASES],
            "api": [(c.name, cases.run_api(c, root)) for c in cases.API_CASES],
        }
        with cases.web_client() as client:
            outcomes["web"] = [(c.name, cases.run_web(c, client)) for c in cases.WEB_CASES]
    kinds = ("clear", "unclear", "traceback", "silent")
    print(f"{'surface':8s} {'inputs':>7s} " + " ".join(f"{k:>9s}" for k in kinds))
    total = dict.fromkeys(("inputs", *kinds), 0)
    for surface, results in outcomes.items():
        found = [o.kind for _, o in results]
        row = {"inputs": len(found), **{k: found.count(k) for k in kinds}}
        for k, v in row.items():
            total[k] += v
        print(f"{surface:8s} {row['inputs']:7d} " + " ".join(f"{row[k]:9d}" for k in kinds))
    print(f"{'total':8s} {total['inputs']:7d} " + " ".join(f"{total[k]:9d}" for k in kinds))
    if args.list:
        for surface, results in outcomes.items():
            for case, outcome in results:
                if outcome.kind != "clear":
                    detail = " ".join(outcome.detail.split())[:200]
                    print(f"{surface} {case!r}: {outcome.kind}: {detail}")


if __name__ == "__main__":
    main()
