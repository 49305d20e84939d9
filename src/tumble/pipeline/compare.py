"""Two finished runs side by side: ``compare.csv``, ``compare.json``, ``compare.md`` (the table of
Leine et al. 2021, Table 2, with the published values beside when the runs are slope40's explicit
and implicit ensembles) and ``envelopes.png`` (the two spread envelopes over the hillshade).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tumble.io.run_folder import RunPaths


def _read_summary(directory: str | os.PathLike) -> dict:
    folder = Path(directory)
    if not folder.is_dir():
        raise ValueError(f"{directory} is not a folder of a run")
    path = RunPaths(folder).summary
    if not path.is_file():
        raise ValueError(f"{directory} holds no finished run (no summary.json)")
    try:
        summary = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"{path} is not a readable summary of a run: {err}") from None
    if not isinstance(summary, dict) or "scheme" not in summary or "fractions" not in summary:
        raise ValueError(f"{path} is not the summary of a tumble rockfall run")
    return summary


def compare_runs(
    run_a: str | os.PathLike, run_b: str | os.PathLike, out: str | os.PathLike
) -> list[dict[str, Any]]:
    """Write the comparison of two finished runs into ``out`` (module docstring); returns the
    table's rows."""
    import numpy as np

    from tumble.io import ResultDir, read_raster, write_csv
    from tumble.rockfall.terrain import Terrain
    from tumble.validation.slope40 import compare_table, markdown
    from tumble.viz.rockfall import plot_envelopes

    a, b = _read_summary(run_a), _read_summary(run_b)
    labels = (a["scheme"], b["scheme"])
    if labels[0] == labels[1]:
        labels = (Path(run_a).name or "A", Path(run_b).name or "B")
    try:
        rows = compare_table(a, b, labels)
    except (KeyError, TypeError, IndexError) as err:
        raise ValueError(
            f"the summaries of the two runs lack what the table needs ({err})"
        ) from None
    passing = []
    for directory in (run_a, run_b):
        path = RunPaths(directory).raster("passing_count")
        if not path.is_file():
            raise ValueError(f"{directory} has no rasters/passing_count.tif")
        passing.append(read_raster(path))
    dem = RunPaths(run_a).dem
    terrain = Terrain.from_file(dem)
    if passing[1].values.shape != passing[0].values.shape:
        raise ValueError("the two runs are on different DEM grids; no overlay map")
    with ResultDir(out) as stage:
        columns = {name: np.array([r[name] for r in rows]) for name in rows[0]}
        write_csv(stage / "compare.csv", columns)
        (stage / "compare.json").write_text(
            json.dumps({"runs": [str(run_a), str(run_b)], "labels": labels, "rows": rows}, indent=2)
            + "\n"
        )
        title = (
            "Leine et al. 2021, Table 2 analogue (mean +- std over path samples)"
            if "published explicit" in rows[0]
            else "Two runs side by side (mean +- std over path samples)"
        )
        (stage / "compare.md").write_text(f"# {title}\n\n" + markdown(rows))
        plot_envelopes(
            terrain,
            passing[0].values,
            passing[1].values,
            labels,
            stage / "envelopes.png",
            title=f"Spread envelopes: {labels[0]} (black), {labels[1]} (red)",
        )
    return rows
