"""Runs of ``rocks = "auto"``: the rock counts of the rounds, the chunks a round takes over from
the round before; and the rocks held next to their release (``stopped_near_release``).

A round of ``n`` rocks is the fixed run of ``n`` rocks: its rocks are those a run of ``n`` rocks
simulates (one random stream per rock; with release areas the split of the rocks depends on
``n``), so the numbers of the last round are those of ``tumble rockfall run rocks=n``. A chunk
of the round before is taken over only when all of its inputs are equal
(:meth:`tumble.rockfall.ensemble.Ensemble.chunk_fingerprint`): with one release point every
rock of the round before is reused; with release areas the rocks whose area changed are run
again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tumble.io import run_folder as layout
from tumble.io.config import RockfallConfig
from tumble.io.results import write_json_atomic
from tumble.rockfall.ensemble.chunks import chunk_path
from tumble.rockfall.hazard.settling import RoundProducts, Rounds, Settling
from tumble.rockfall.site.from_config import build_run

#: rocks of the first round of an auto run (doubled each round up to max_rocks)
FIRST_ROUND = 200


def auto_rounds(config: RockfallConfig) -> list[int]:
    """Rocks of each round: :data:`FIRST_ROUND`, doubled each round, the last
    ``convergence.max_rocks``."""
    most = int(config.convergence.max_rocks)
    counts = [min(FIRST_ROUND, most)]
    while counts[-1] < most:
        counts.append(min(2 * counts[-1], most))
    return counts


def carry_chunks(
    ensemble: Any,
    out: str | os.PathLike,
    chunk_size: int,
    inputs: dict[str, Any],
    previous: Callable[[int], Any],
) -> int:
    """Make ``out/chunks`` a chunk folder of ``ensemble`` holding the chunks of the run found
    there (of another number of rocks; ``previous(n)`` gives its ensemble, as
    :func:`round_before` does) whose inputs are equal to this one's; the others are left to
    compute. Nothing happens without a chunk folder or when it already belongs to ``ensemble``.
    Returns the chunks taken over."""
    out = Path(out)
    folder = out / layout.CHUNKS
    manifest_path = folder / layout.MANIFEST
    if not manifest_path.exists():
        return 0
    manifest = json.loads(manifest_path.read_text())
    fingerprint = ensemble.fingerprint()
    if manifest.get("fingerprint") == fingerprint and manifest.get("n_rocks") == ensemble.n_rocks:
        return 0
    old = previous(int(manifest["n_rocks"]))
    old_size = int(manifest["chunk_size"])
    known = {old.chunk_fingerprint(a, b): i for i, (a, b) in enumerate(old.chunks(old_size))}
    staging = out / f".{layout.CHUNKS}.previous"
    shutil.rmtree(staging, ignore_errors=True)
    os.replace(folder, staging)
    folder.mkdir()
    taken = 0
    for i, (a, b) in enumerate(ensemble.chunks(chunk_size)):
        source = known.get(ensemble.chunk_fingerprint(a, b))
        if source is not None and (staging / chunk_path(out, source).name).exists():
            os.replace(staging / chunk_path(out, source).name, chunk_path(out, i))
            taken += 1
    write_json_atomic(
        manifest_path,
        {
            "fingerprint": fingerprint,
            "n_rocks": ensemble.n_rocks,
            "chunk_size": int(chunk_size),
            "inputs": inputs,
            "sessions": list(manifest.get("sessions", [])),
        },
    )
    shutil.rmtree(staging, ignore_errors=True)
    return taken


def round_before(
    ensemble: Any, config: RockfallConfig, base_dir: str | os.PathLike
) -> Callable[[int], Any]:
    """``previous`` of :func:`carry_chunks` in a round: ``ensemble``, that of the round before,
    built already, when the chunk folder holds its number of rocks, so that no round is built
    twice; for another number (a folder left by an interrupted run of other rounds) the
    ensemble of ``config`` with that many rocks, built anew."""

    def previous(rocks: int) -> Any:
        if rocks == ensemble.n_rocks:
            return ensemble
        return build_run(config.model_copy(update={"rocks": rocks}), base_dir).ensemble

    return previous


def product_rounds(config: RockfallConfig) -> Rounds:
    """The rounds of an auto run, judged on the products and thresholds of
    ``[convergence]``."""
    c = config.convergence
    criteria = Settling(
        reach_line_probability=c.reach_line_probability,
        reach_line_moved=c.reach_line_moved,
        zone_changed=c.zone_changed,
        zone_boundary_moved=c.zone_boundary_moved,
        design_interval=c.design_interval,
        design_change=c.design_change,
        judge=tuple(c.judge),
        min_probability=c.min_probability,
    )
    return Rounds(criteria)


def judge_round(
    rounds: Rounds, result: Any, zoning: dict[str, Any], cells: dict[str, Any], rocks: int
) -> dict[str, float | None]:
    """Add a round's products (the result with its barrier statistics, its zoning rasters and
    its per-cell record) to ``rounds``; returns the round's measures."""
    probability = rounds.criteria.reach_line_probability
    reach = np.asarray(result.rasters["reach_probability"]) >= probability
    now = RoundProducts(
        rocks=rocks,
        reach=reach,
        zone=zoning.get("hazard_zone"),
        barriers=result.summary.get("barriers"),
        cells=cells,
    )
    return rounds.add(now)


#: a rock at rest closer than this to its release point (horizontally) has not really started
NEAR_RELEASE_M = 2.0
#: the share of such rocks above which a run warns
NEAR_RELEASE_SHARE = 0.01


def near_release_record(result: Any) -> dict[str, Any]:
    """``summary.json["stopped_near_release"]``: the rocks at rest within
    :data:`NEAR_RELEASE_M` of their release point (horizontal run-out), and their share of all
    rocks."""
    status = np.asarray(result.rocks["status"])
    runout = np.asarray(result.rocks["runout_m"], dtype=np.float64)
    near = int(np.sum((status == "stopped") & (runout < NEAR_RELEASE_M)))
    return {
        "within_m": NEAR_RELEASE_M,
        "rocks": near,
        "share": near / status.size if status.size else 0.0,
    }


def near_release_warning(record: dict[str, Any]) -> str | None:
    """A warning when more than :data:`NEAR_RELEASE_SHARE` of the rocks came to rest next to
    their release: a rock that starts sliding on a face collects slippage and, with a scarring
    soil whose mu_max exceeds tan(slope), is held by the soil's friction (docs/reach_and_start.md,
    tumble rockfall soils); field releases of blocks rarely end so."""
    if record["share"] <= NEAR_RELEASE_SHARE:
        return None
    return (
        f"{record['rocks']} rocks ({100.0 * record['share']:.1f} %) came to rest within "
        f"{record['within_m']:g} m of their release point: a rock that slides from its release "
        "is held once the soil's slippage friction reaches tan(slope) (tumble rockfall soils "
        "says below which slope each category holds); check the release height and speed, the "
        "rock shape and the soil category"
    )
