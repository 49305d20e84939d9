"""The search of ``tumble rockfall calibrate``: which soil sets the observed blocks cannot tell
from the truth (``docs/calibration.md``).

1. A Latin hypercube of ``points`` sets over the free fields (``scipy.stats.qmc``, seeded);
   each set runs every observed block ``orientations`` times (:mod:`.blocks`) and is scored
   (:mod:`.scores`).
2. With ``zoom`` > 0, ``zoom`` rounds narrow the search: round ``r`` draws a Latin hypercube of
   ``points // 2`` (at least two) new sets in a box around the best set so far (:func:`ranked`),
   of ``2^-r`` times the width of each free range, shifted to lie inside the range
   (:func:`zoom_design`), on the same rocks as the design.
3. With ``bayes`` > 0, ``bayes`` more sets proposed by a Bayesian optimiser given every set so
   far (:mod:`.bayes`: Optuna's tree-structured Parzen estimator, ``batch`` sets at a time), on
   the same rocks.
4. The best quarter of them (at least two) run again, :data:`REFINE_ROUNDS` times with new
   orientations (the next streams of the seed), and are scored on all their rocks. "Best" is
   the order of :func:`ranked`: the sets the observations do not reject (KS p-value at least
   :data:`~.scores.KS_LEVEL`) before those they reject, each group by its objective.
5. The best set is the centre of the equivalent sets, every evaluated set with a KS p-value
   of at least :data:`~.scores.KS_LEVEL` (:func:`medoid`), run on the refined sets' rocks too
   when it was not among them (if those reject it, the centre of the others is taken). With
   ``select="objective"`` it is the first of the refined ones in the order of
   :func:`ranked`: the set of least objective among those the data cannot reject, as the
   joint Authume calibration chooses (``docs/calibration_objective.md``). When the data reject
   every set, both rules take the refined set of least objective.

A set's rocks depend only on the seed, the set and the observations: the same for any number
of threads, and on a Dask cluster (``client``: each set a task on one worker thread, the site
sent to every worker once) the same as on this machine.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble._check import require
from tumble.io.observations import Observations
from tumble.pipeline.calibration.bayes import BATCH, Proposer
from tumble.pipeline.calibration.blocks import Blocks, Releases, blocks_on, releases
from tumble.pipeline.calibration.scores import KS_LEVEL, observed_summary, runout_scores
from tumble.pipeline.calibration.site import FreeField, Site
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.outcomes import run_outcomes
from tumble.rockfall.rock import Rock
from tumble.rockfall.soil import Soil
from tumble.rockfall.status import REGULAR

#: further rounds of new orientations for the refined sets
REFINE_ROUNDS = 2
#: the scores of a refined set on its new orientations alone (``"fresh"`` in calibration.json)
FRESH_KEYS = ("rocks", "objective", "ks_statistic", "ks_pvalue", "median_ratio", "p05_runout_m")
#: rocks per chunk of the ensemble driver (the progress is told per chunk)
CHUNK_ROCKS = 64


@dataclass(frozen=True, eq=False)
class Simulated:
    """The rocks of one set: ``runout`` (n,) m, ``stop`` (n, 2), ``regular`` (n,) bool,
    ``block`` (n,) observed block of each rock."""

    runout: np.ndarray
    stop: np.ndarray
    regular: np.ndarray
    block: np.ndarray

    def __add__(self, other: Simulated) -> Simulated:
        return Simulated(
            *(
                np.concatenate([getattr(self, f.name), getattr(other, f.name)])
                for f in dataclasses.fields(self)
            )
        )


def simulate(
    site: Site,
    rel: Releases,
    soil: Soil,
    seed: int,
    threads: int,
    advance: Callable[[int], None] | None = None,
) -> Simulated:
    """Every rock of ``rel`` on ``soil``; ``advance(rocks)`` after each chunk."""
    shapes: tuple[Rock, ...] = rel.shapes
    ensemble = Ensemble(
        site.terrain,
        shapes,
        soil,
        rel.states,
        shape_id=rel.shape_id,
        seed=seed,
        options=site.options,
        forest=site.forest,
    )
    out = run_outcomes(
        ensemble,
        CHUNK_ROCKS,
        threads,
        None if advance is None else lambda lo, hi: advance(hi - lo),
    )
    final = out["stop"]
    regular = np.isin(out["status"], [int(c) for c in REGULAR])
    start = rel.states.position[:, :2]
    runout = np.hypot(*(final[:, :2] - start).T)
    return Simulated(runout, final[:, :2], regular, rel.block)


def simulate_sets(
    site: Site,
    jobs: Sequence[tuple[Releases, Soil]],
    seed: int,
    threads: int,
    advance: Callable[[int], None] | None = None,
    client: Any = None,
) -> list[Simulated]:
    """:func:`simulate` of every ``(releases, soil)`` of ``jobs``, in their order: one after
    another on ``threads``, or with a ``distributed.Client`` as one task per job on the cluster
    (each on one worker thread; the numbers do not depend on it), ``advance`` called as each
    job's rocks are done. The site and the releases are scattered under keys of their own
    (``hash=False``): a key derived from the content would be the key a previous call of the
    same site is still releasing on the scheduler, and its tasks would lose their input."""
    if client is None:
        return [simulate(site, rel, soil, seed, threads, advance) for rel, soil in jobs]
    as_completed = require("distributed", "cluster", "--dask").as_completed
    [remote] = client.scatter([site], broadcast=True, hash=False)
    shared: dict[int, Any] = {}
    for rel, _ in jobs:
        if id(rel) not in shared:
            [shared[id(rel)]] = client.scatter([rel], broadcast=True, hash=False)
    futures = [
        client.submit(simulate, remote, shared[id(rel)], soil, seed, 1, None, pure=False)
        for rel, soil in jobs
    ]
    where = {future.key: k for k, future in enumerate(futures)}
    out: list[Any] = [None] * len(futures)
    for future in as_completed(futures):
        k = where[future.key]
        out[k] = future.result()
        if advance is not None:
            advance(len(jobs[k][0]))
    return out


def scores_of(blocks: Blocks, sim: Simulated) -> dict[str, Any]:
    return runout_scores(blocks.runout, sim.runout, sim.regular, blocks.stop, sim.stop, sim.block)


def _hypercube(
    free: Sequence[FreeField],
    start: np.ndarray,
    width: np.ndarray,
    points: int,
    rng: np.random.Generator,
) -> list[dict[str, float]]:
    """``points`` sets of a Latin hypercube (``scipy.stats.qmc``, drawn from ``rng``) over the
    box ``[start, start + width]`` of the free fields."""
    from scipy.stats import qmc

    unit = qmc.LatinHypercube(d=len(free), seed=rng).random(points)
    scaled = unit * width + start
    return [{f.name: float(row[j]) for j, f in enumerate(free)} for row in scaled]


def design(free: Sequence[FreeField], points: int, seed: int) -> list[dict[str, float]]:
    """``points`` sets of a Latin hypercube over the free fields (seeded by ``seed``)."""
    low = np.array([f.low for f in free])
    high = np.array([f.high for f in free])
    return _hypercube(free, low, high - low, points, np.random.default_rng(seed))


def zoom_design(
    free: Sequence[FreeField], centre: dict[str, float], points: int, seed: int, level: int
) -> list[dict[str, float]]:
    """``points`` sets of a Latin hypercube (seeded by ``seed`` and ``level``) in the box of
    ``2^-level`` times the width of each free range around ``centre``, the box shifted (not
    shrunk) where it would leave the range."""
    low = np.array([f.low for f in free])
    high = np.array([f.high for f in free])
    width = (high - low) * 0.5**level
    start = np.clip(np.array([centre[f.name] for f in free]) - width / 2.0, low, high - width)
    return _hypercube(free, start, width, points, np.random.default_rng([seed, level]))


@dataclass
class Calibration:
    """What :func:`calibrate` found: every evaluated set (``sets``: values, scores, stage,
    rounds), the index of the best, of the equivalent ones, the site's soil values
    (``base_soil``) and every field of each set (``soils``, :meth:`.Site.values_of`), and for
    the report the simulated run-outs of the best, the observed releases and stops (m, 2) and
    the best set's simulated stops (n, 2), and the terrain."""

    free: tuple[FreeField, ...]
    sets: list[dict[str, Any]]
    best: int
    equivalent: list[int]
    base_soil: dict[str, Any]
    observed: dict[str, Any]
    settings: dict[str, Any]
    observed_runout: np.ndarray
    best_runout: np.ndarray
    soils: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    observed_release: np.ndarray | None = None
    observed_stop: np.ndarray | None = None
    best_stop: np.ndarray | None = None
    terrain: Any = None
    seconds: float = 0.0
    check: dict[str, Any] | None = None

    def soil_values(self, k: int) -> dict[str, Any]:
        """Every field of set ``k`` as ``tumble rockfall soils`` names it (on a soil map,
        ``{"classes": {code: fields}}``)."""
        return self.soils[k]


def ranked(sets: Sequence[dict[str, Any]], among: Sequence[int] | None = None) -> list[int]:
    """The indices of ``sets`` (or of those ``among`` them), best first: the sets the
    observations do not reject (``ks_pvalue`` at least :data:`~.scores.KS_LEVEL`) before those
    they reject, each group in the order of the objective (ties by index)."""
    keys = range(len(sets)) if among is None else among
    return sorted(keys, key=lambda k: (sets[k]["ks_pvalue"] < KS_LEVEL, sets[k]["objective"], k))


#: the rules that choose the best set (``--select``), the default first
SELECT = ("medoid", "objective")


def medoid(sets: Sequence[dict[str, Any]], among: Sequence[int], free: Sequence[FreeField]) -> int:
    """The set of ``among`` whose summed distance to the others is least: each field scaled to
    its free range, distances in the L1 norm (ties by objective, then index). The accepted sets
    are a sample of the sets the observations cannot tell from the truth, as in the rejection
    scheme of approximate Bayesian computation (Pritchard et al. 1999, Mol. Biol. Evol. 16:1791;
    Beaumont et al. 2002, Genetics 162:2025); the medoid is that sample's centre (Kaufman and
    Rousseeuw 1990), a point estimate the extreme of one sample's objective does not move."""
    x = np.array(
        [[(sets[k]["values"][f.name] - f.low) / (f.high - f.low) for f in free] for k in among]
    )
    spread = np.abs(x[:, None, :] - x[None, :, :]).sum(axis=(1, 2))
    i = min(range(len(among)), key=lambda i: (spread[i], sets[among[i]]["objective"], among[i]))
    return among[i]


def choose(
    sets: Sequence[dict[str, Any]],
    free: Sequence[FreeField],
    select: str,
    refine: Callable[[list[int]], None],
) -> int:
    """The best set of step 5 (module docstring), once the best sets are refined (their
    ``"stage"`` is ``"refined"``). ``"medoid"``: the medoid of the accepted sets; one that is
    not refined yet is passed to ``refine`` (which scores it on the refined sets' rocks and
    marks it ``"refined"``) and judged again, so that if those rocks reject it the medoid of
    the others is taken; with no accepted set left, and with ``"objective"``, the first
    refined set in the order of :func:`ranked`."""
    while select == "medoid":
        accepted = [k for k, s in enumerate(sets) if s["ks_pvalue"] >= KS_LEVEL]
        if not accepted:
            break
        centre = medoid(sets, accepted, free)
        if sets[centre]["stage"] == "refined":
            return centre
        refine([centre])
    return ranked(sets, [k for k, s in enumerate(sets) if s["stage"] == "refined"])[0]


def calibrate(
    site: Site,
    obs: Observations,
    free: Sequence[FreeField],
    points: int = 16,
    orientations: int = 4,
    zoom: int = 0,
    seed: int = 0,
    threads: int = 1,
    progress: Callable[[int], Any] | None = None,
    client: Any = None,
    bayes: int = 0,
    batch: int = BATCH,
    select: str = "medoid",
) -> Calibration:
    """The search of the module docstring. ``progress(total)`` returns an object whose
    ``update(rocks)`` is called after each chunk (a
    :class:`~tumble.rockfall.ensemble.progress.Progress`); ``client``: a
    ``distributed.Client`` to run the sets on (:func:`simulate_sets`); ``select``: the rule of
    the best set (:data:`SELECT`, step 5 of the module docstring)."""
    if select not in SELECT:
        raise ValueError(f"select must be one of {', '.join(SELECT)}, not {select!r}")
    start = time.perf_counter()
    site.check_free(free)
    blocks = blocks_on(obs, site.terrain, site.classes, site.crs)
    per_round = len(blocks) * orientations
    zoomed = max(2, points // 2)
    designed_total = points + zoom * zoomed + bayes
    proposer = Proposer(free, seed) if bayes > 0 else None  # refuses a missing optuna first
    refined = max(2, designed_total // 4) if designed_total >= 2 else 1
    total = per_round * (designed_total + refined * REFINE_ROUNDS)
    bar = progress(total) if progress is not None else None
    advance = None if bar is None else bar.update

    def rocks_of(round_: int) -> Releases:
        # round r takes the streams after those of rounds 0 .. r-1
        return releases(blocks, site.terrain, orientations, seed, first=round_ * per_round)

    first = rocks_of(0)
    sets: list[dict[str, Any]] = []
    runs: list[Simulated] = []

    def evaluate(drawn: list[dict[str, float]], stage: str) -> None:
        """Run the ``drawn`` sets on the design's rocks and add them with their scores."""
        jobs = [(first, site.soil_with(values)) for values in drawn]
        for values, sim in zip(
            drawn, simulate_sets(site, jobs, seed, threads, advance, client), strict=True
        ):
            runs.append(sim)
            sets.append(
                {"values": values, "stage": stage, "drawn": stage, "rounds": 1}
                | scores_of(blocks, sim)
            )

    evaluate(design(free, points, seed), "design")
    for level in range(1, zoom + 1):
        centre = sets[ranked(sets)[0]]["values"]
        evaluate(zoom_design(free, centre, zoomed, seed, level), f"zoom {level}")
    if proposer is not None:
        proposer.tell_history(sets)
        for done in range(0, bayes, batch):
            trials, drawn = proposer.propose(min(batch, bayes - done))
            evaluate(drawn, "bayes")
            proposer.tell(trials, sets[-len(drawn) :])
    order = ranked(sets)[:refined]

    def refine(these: list[int]) -> None:
        """Run ``these`` sets on the rocks of the further rounds; score them on all."""
        fresh: dict[int, Simulated] = {}
        for r in range(1, REFINE_ROUNDS + 1):
            again = rocks_of(r)
            jobs = [(again, site.soil_with(sets[k]["values"])) for k in these]
            for k, sim in zip(
                these, simulate_sets(site, jobs, seed, threads, advance, client), strict=True
            ):
                runs[k] = runs[k] + sim
                fresh[k] = fresh[k] + sim if k in fresh else sim
        for k in these:
            sets[k].update(stage="refined", rounds=1 + REFINE_ROUNDS, **scores_of(blocks, runs[k]))
            # the new orientations alone, which did not choose the set for refinement
            scores = scores_of(blocks, fresh[k])
            sets[k]["fresh"] = {key: scores[key] for key in FRESH_KEYS if key in scores}

    refine(order)

    def refine_centre(centre: list[int]) -> None:
        if bar is not None:
            bar.grow(per_round * REFINE_ROUNDS)
        refine(centre)

    best = choose(sets, free, select, refine_centre)
    if bar is not None:
        bar.close()
    equivalent = [k for k, s in enumerate(sets) if s["ks_pvalue"] >= KS_LEVEL]
    for k, s in enumerate(sets):
        s["set"] = k
        s["equivalent"] = k in equivalent
    return Calibration(
        free=tuple(free),
        sets=sets,
        best=best,
        equivalent=sorted(equivalent, key=lambda k: sets[k]["objective"]),
        base_soil=site.values_of({}),
        observed=observed_summary(blocks.runout),
        settings={
            "points": points,
            "zoom": zoom,
            "bayes": bayes,
            "batch": batch,
            "select": select,
            "orientations": orientations,
            "seed": seed,
            "refined": refined,
            "refine_rounds": REFINE_ROUNDS,
            "ks_level": KS_LEVEL,
            "free": [f.text() for f in free],
            "observations": obs.path,
        },
        observed_runout=blocks.runout,
        best_runout=runs[best].runout[runs[best].regular],
        soils=[site.values_of(s["values"]) for s in sets],
        observed_release=blocks.release,
        observed_stop=blocks.stop,
        best_stop=runs[best].stop[runs[best].regular],
        terrain=site.terrain,
        seconds=time.perf_counter() - start,
    )


def _inside(blocks: Blocks, sim: Simulated) -> dict[str, float]:
    """The share of the observed stops inside the 95 % envelope of the simulated stops
    (:func:`tumble.validation.authume.metrics.stop_envelope`, the Authume validation's)."""
    from tumble.validation.authume.metrics import fraction_inside, stop_envelope

    stops = sim.stop[sim.regular]
    if len(stops) < 2:
        return {}
    return {"inside_envelope": fraction_inside(stop_envelope(stops), blocks.stop)}


def check(
    site: Site,
    obs: Observations,
    calibration: Calibration,
    orientations: int = 4,
    seed: int = 0,
    threads: int = 1,
    progress: Callable[[int], Any] | None = None,
    client: Any = None,
) -> dict[str, Any]:
    """The best and the equivalent sets on held-out blocks: each set's scores (median ratio, KS
    p, early stops, the share of observed stops inside the simulated 95 % stop envelope) and
    whether the best passes (median within 15 %, KS p at least
    :data:`~.scores.KS_LEVEL`, no early stops)."""
    blocks = blocks_on(obs, site.terrain, site.classes, site.crs)
    rel = releases(blocks, site.terrain, orientations, seed)
    chosen = [calibration.best, *(k for k in calibration.equivalent if k != calibration.best)]
    bar = progress(len(rel) * len(chosen)) if progress is not None else None
    jobs = [(rel, site.soil_with(calibration.sets[k]["values"])) for k in chosen]
    sims = simulate_sets(site, jobs, seed, threads, None if bar is None else bar.update, client)
    rows = []
    for k, sim in zip(chosen, sims, strict=True):
        values = calibration.sets[k]["values"]
        rows.append({"set": k, "values": values, **scores_of(blocks, sim), **_inside(blocks, sim)})
    if bar is not None:
        bar.close()
    for row in rows:
        row["failed"] = check_failures(row)
        row["passes"] = not row["failed"]
    best = rows[0]
    return {
        "observations": obs.path,
        "observed": observed_summary(blocks.runout),
        "orientations": orientations,
        "seed": seed,
        "best": best,
        "sets": rows,
        "best_passes": best["passes"],
        "failed": best["failed"],
        "rule": CHECK_RULE,
        # the run-outs the best set's scores come from, so that they can be recomputed (m)
        "observed_runouts_m": [float(v) for v in blocks.runout],
        "best_runouts_m": [float(v) for v in sims[0].runout[sims[0].regular]],
    }


#: the rule of a held-out check (issue #48), in words
CHECK_RULE = "median ratio within 15 %, KS p >= 0.05, simulated p05 at least half the observed"


def check_failures(scores: dict[str, Any]) -> list[str]:
    """The criteria of :data:`CHECK_RULE` that held-out ``scores`` fail (none: it passes)."""
    return [
        name
        for name, ok in (
            ("median ratio within 15 %", abs(scores.get("median_ratio", math.inf) - 1.0) <= 0.15),
            ("KS p >= 0.05", scores.get("ks_pvalue", 0.0) >= KS_LEVEL),
            ("simulated p05 at least half the observed", scores.get("early_stops_ok", False)),
        )
        if not ok
    ]
