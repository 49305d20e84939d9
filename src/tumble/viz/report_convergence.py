"""The report's section "How sure the maps are" (the per-cell intervals; with ``rocks = "auto"``
the products judged between rounds, when each settled, the rounds' numbers) and the figure of
the rounds: each product's measure against the rocks, with its threshold."""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from tumble.viz.png import save_figure
from tumble.viz.report_html import number, records_table

#: caption of ``figures/convergence.png``
CONVERGENCE_FIGURE = (
    'rocks = "auto": each judged product\'s measure between rounds against the rocks of the '
    "round (log-log), with its threshold dashed; a product has settled once its measure stays "
    "under the threshold"
)
#: a measure of 0 drawn at this value on the log axis
FLOOR = 1e-4


def convergence_section(summary: Mapping[str, Any]) -> str:
    """How sure the maps are: the convergence record, and per round how the numbers settled."""
    record = summary.get("convergence")
    if not isinstance(record, Mapping):
        return ""
    cells, done = record.get("cells"), record.get("cells_converged")
    verdict = "all have" if cells and cells == done else "not all have"
    text = (
        "<h2>How sure the maps are</h2><p class='note'>Every cell has 95 % intervals beside its "
        "value: the reach probability's (Clopper-Pearson 1934, from the cell's count; "
        "reach_probability_low.tif, _high.tif) and the 95th-percentile energy's (distribution-"
        "free, from the order statistics of the cell's values, read from histograms of 64 bins "
        "per octave and widened to their edges, at most 1.6 %; kinetic_energy_p95_low.tif, "
        "_high.tif). A cell of reach probability at least "
        f"{html.escape(str(record.get('min_probability')))} has converged when both intervals "
        f"lie within {html.escape(str(record.get('target')))} of the value, relative to it "
        f"(converged.tif). With {number(record.get('rocks'))} rocks "
        f"{number(done)} of {number(cells)} such cells have converged: {verdict}.</p>"
    )
    products = record.get("products")
    if isinstance(products, Mapping) and products:
        text += (
            "<p class='note'>rocks = \"auto\": the run grew in rounds (each the fixed run of its "
            "number of rocks) until every product judged had settled between two rounds, or "
            f"convergence.max_rocks = {number(record.get('max_rocks'))} was reached: "
            f"{html.escape(str(record.get('verdict')))}.</p>"
            + records_table([_product_row(name, p) for name, p in products.items()])
        )
    rounds = record.get("rounds")
    if isinstance(rounds, list) and rounds:
        text += "<p class='note'>How the numbers settled, round by round:</p>" + records_table(
            [dict(r) for r in rounds if isinstance(r, Mapping)]
        )
    return text


def _product_row(name: str, product: Mapping[str, Any]) -> dict[str, Any]:
    what = str(product.get("measure"))
    if "probability" in product:
        what += f" (reach probability >= {product['probability']:g})"
    settled = (
        f"round {product['round']} ({product['rocks']} rocks)"
        if product.get("round")
        else "not settled"
    )
    return {
        "product": name,
        "measure": what,
        "threshold": product.get("threshold"),
        "last": product.get("last"),
        "settled": settled if product.get("judged") else product.get("nothing_to_judge"),
    }


def plot_convergence_rounds(record: Mapping[str, Any], path: str | os.PathLike) -> bool:
    """``figures/convergence.png`` of an auto run (:data:`CONVERGENCE_FIGURE`); False, and
    nothing drawn, when no product has a measure."""
    measures = [m for m in record.get("measures") or () if isinstance(m, Mapping)]
    products = record.get("products") or {}
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    drawn = False
    for k, (name, product) in enumerate(products.items()):
        points = [(m["rocks"], m[name]) for m in measures if m.get(name) is not None]
        if not points:
            continue
        color = f"C{k}"
        rocks, values = zip(*points, strict=True)
        ax.plot(rocks, [max(v, FLOOR) for v in values], "o-", color=color, label=name)
        ax.axhline(max(float(product["threshold"]), FLOOR), color=color, linestyle="--")
        drawn = True
    if not drawn:
        return False
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rocks of the round")
    ax.set_ylabel("measure against the round before")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    ax.set_title(str(record.get("verdict", ""))[:70])
    fig.tight_layout()
    save_figure(fig, path, 110)
    return True
