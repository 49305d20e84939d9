"""The release places of the example real site drawn for many rocks at once against rock by rock,
and a capped ``rocks = "auto"`` run with the set-up as it is against the set-up as it was.

Needs the example site (``python examples/real_site/make_site.py --source avaHit.asc``).

1. **Release draw.** ``examples/real_site/site.toml`` (two release areas of 873 and 254 ring
   vertices, two rock classes) with ``--rocks`` rocks, plain and stratified sampling: the places
   and orientations of all rocks by :meth:`Release.draw` (without the hulls' clearance; the
   areas' point-in-polygon grids built anew each pass, as every round of a run builds them),
   against the rock-by-rock draw from each rock's stream (``Release._start``, what ``draw``
   did for release areas before). Rocks per second, best of ``--repeat``; the two must agree
   to the last bit.
2. **Auto run.** ``rocks = "auto"`` on the site with ``convergence.max_rocks = --max-rocks``
   and ``run.threads = --threads`` in this process: first with the set-up as it was
   (every rock's place drawn rock by rock, and each round's ensemble built again to fingerprint
   the chunks of the round before), then as it is, in turn ``--auto-repeat`` times. The best
   wall time of each, the time spent building the rounds' ensembles in it, and whether the
   result folders hold the same numbers (summary but its timings, deposits). The numba kernels
   are compiled (or loaded) before.

    python benchmarks/release_draw.py [--rocks 10000] [--repeat 3] [--max-rocks 800]
        [--threads 1] [--auto-repeat 2] [--skip-auto]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

SITE = Path(__file__).resolve().parents[1] / "examples" / "real_site"
#: the summary's entries that differ between two runs of the same numbers
TIMING = {"wall_time_s", "rock_steps_per_s", "sessions", "timings"}


def setup_of(rocks: int, sampling: str) -> Any:
    from tumble.io.config import load_config
    from tumble.rockfall.site.from_config import build_run

    config = load_config(SITE / "site.toml", {}, [f"rocks={rocks}", f"release.sampling={sampling}"])
    return config, build_run(config, SITE)


def best_time(work: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = work()
        best = min(best, time.perf_counter() - t0)
    return best, out


def release_draw(rocks: int, repeat: int) -> None:
    from tumble.rockfall.release import rock_rng

    print(f"release draw, {rocks} rocks on examples/real_site (best of {repeat})")
    print(
        f"{'sampling':<11} {'at once rocks/s':>16} {'rock by rock rocks/s':>21} {'ratio':>7}  same"
    )
    for sampling in ("random", "stratified"):
        config, setup = setup_of(rocks, sampling)
        release, terrain, seed = setup.release, setup.ensemble.terrain, config.seed

        def at_once(release: Any = release, terrain: Any = terrain, seed: int = seed) -> Any:
            release.areas._grids.clear()  # built anew, as in every round of a run
            return release.draw(terrain, rocks, seed)

        def one_by_one(release: Any = release, terrain: Any = terrain, seed: int = seed) -> Any:
            place, orientation = np.empty((rocks, 2)), np.empty((rocks, 4))
            for k in range(rocks):
                place[k], orientation[k] = release._start(rock_rng(seed, k), k, terrain)
            return place, orientation

        fast, states = best_time(at_once, repeat)
        slow, (place, orientation) = best_time(one_by_one, max(1, repeat // 3))
        same = np.array_equal(states.position[:, :2], place) and np.array_equal(
            states.orientation, orientation
        )
        print(
            f"{sampling:<11} {rocks / fast:16.0f} {rocks / slow:21.0f} {slow / fast:7.1f}  {same}"
        )


@contextmanager
def set_up(builds: list[float], old: bool) -> Iterator[None]:
    """An auto run's set-up as it is or, with ``old``, as it was (places drawn rock by rock,
    the round before built again); ``builds`` collects the seconds of every ensemble built."""
    import tumble.pipeline.auto as auto
    import tumble.pipeline.run as run
    from tumble.rockfall.release import Release

    saved = (run.build_run, auto.build_run, run.round_before, Release._first_places)
    build = saved[0]

    def timed_build(config: Any, base_dir: Any = ".") -> Any:
        t0 = time.perf_counter()
        out = build(config, base_dir)
        builds.append(time.perf_counter() - t0)
        return out

    def rock_by_rock(self: Any, terrain: Any, n: int, *_: Any) -> np.ndarray:
        return np.arange(n)

    def built_again(before: Any, config: Any, base_dir: Any) -> Callable[[int], Any]:
        return lambda n: timed_build(config.model_copy(update={"rocks": n}), base_dir).ensemble

    try:
        run.build_run = auto.build_run = timed_build
        if old:
            Release._first_places = rock_by_rock  # type: ignore[method-assign]
            run.round_before = built_again
        yield
    finally:
        run.build_run, auto.build_run, run.round_before, Release._first_places = saved


def auto_run(max_rocks: int, threads: int, repeat: int) -> None:
    from tumble.pipeline import RockfallRun

    overrides = ["rocks=auto", f"convergence.max_rocks={max_rocks}", f"run.threads={threads}"]
    print(f"\nrocks = auto on examples/real_site, {' '.join(overrides[1:])} (best of {repeat})")
    best: dict[str, tuple[float, float, int]] = {}
    kept: dict[str, tuple[Any, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # compile (or load) the kernels first, on a run of its own
        RockfallRun.from_config(SITE / "site.toml", overrides=["rocks=20", "t_max=2"]).run(
            Path(tmp) / "warm", progress=False
        )
        for k in range(repeat):  # the two set-ups in turn, against drifts of the machine's load
            for name in ("as it was", "as it is"):
                builds: list[float] = []
                folder = Path(tmp) / f"{name.replace(' ', '_')}_{k}"
                with set_up(builds, old=name == "as it was"):
                    t0 = time.perf_counter()
                    RockfallRun.from_config(SITE / "site.toml", overrides=overrides).run(
                        folder, progress=False
                    )
                    wall = time.perf_counter() - t0
                if name not in best or wall < best[name][0]:
                    best[name] = (wall, sum(builds), len(builds))
                summary = json.loads((folder / "summary.json").read_text())
                kept[name] = (_without_times(summary), (folder / "deposits.csv").read_text())
        rounds = [r["rocks"] for r in kept["as it is"][0]["convergence"]["rounds"]]
    for name, (wall, building, built) in best.items():
        print(f"{name:<10} wall {wall:7.1f} s, {built} ensembles built in {building:6.1f} s")
    same = kept["as it was"] == kept["as it is"]
    ratio = best["as it was"][0] / best["as it is"][0]
    print(f"rounds {rounds}; wall time ratio {ratio:.2f}; same summary and deposits: {same}")


def _without_times(summary: dict[str, Any]) -> Any:
    """The summary without the wall times of the auto run's rounds."""
    out = json.loads(json.dumps({k: v for k, v in summary.items() if k not in TIMING}))
    for r in out.get("convergence", {}).get("rounds", []):
        r.pop("wall_time_s", None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-rocks", type=int, default=800)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--auto-repeat", type=int, default=2)
    parser.add_argument("--skip-auto", action="store_true")
    args = parser.parse_args()
    if not (SITE / "dem.tif").exists():
        raise SystemExit(
            f"{SITE} has no dem.tif: python examples/real_site/make_site.py --source avaHit.asc"
        )
    release_draw(args.rocks, args.repeat)
    if not args.skip_auto:
        auto_run(args.max_rocks, args.threads, args.auto_repeat)


if __name__ == "__main__":
    main()
