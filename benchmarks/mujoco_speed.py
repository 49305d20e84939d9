"""tumble beside MuJoCo on the slope40 workload: rock-steps per second, measured in one run.

The same terrain (``slope40``: 150 m at 40 degrees, 500 m x 500 m flat run-out, 1 m grid, as a
MuJoCo height field), the same rock (the EOTA221 hull of 780 kg, its principal inertia, mesh
vertices in the principal frame), the same release states (``Release.for_scenario("slope40")``,
seed ``--seed``), dt = 0.002 s, gravity 9.81 m/s^2, ``--threads`` threads for both:

* tumble: the ensemble kernel (implicit or explicit rotation, slope40's soil ``lu2019``), the rocks
  simulated until they stop or reach ``--t-max`` (by default the whole run: the ensemble's own
  ``t_max``, every rock to rest); the run's own rock-steps and wall time, the kernels compiled
  (or loaded from the cache) before the clock starts;
* MuJoCo: ``--rocks-per-model`` free bodies in one model (25 by default: on this workload a
  model of 25 rocks cost less per rock-step than models of 1, 10, 100 or 200 rocks, measured on
  2 cores: 6.2, 4.8, 5.4 and 9.7 us against 4.2 us; no rock-rock contact pairs),
  ``mujoco.rollout`` over the release states on a pool of ``--threads`` threads, every rock for
  ``--mujoco-t-max`` seconds (20 by default; MuJoCo has no rest criterion, and its rate per
  rock-step is what is compared), in batches of ``--batch`` rocks so that
  the stored states stay small. Contacts: convex mesh on height field, elliptic friction cones,
  Coulomb friction ``--mu``, MuJoCo's default soft-contact parameters; solver Newton.

The rate is rock-steps per second of wall time, and the figure asked of the engine is the ratio
of the two rates, measured here side by side on the same machine in one process. tumble's rate
is that of ``Ensemble.run``, which also reduces every chunk's cell visits to the hazard rasters
and statistics (work MuJoCo's rollout does not do); the rate of its kernel alone over the same
chunks (the steps, the maxima, cell visits and path samples, no reduction) is printed beside it.
Each engine runs its workload ``--repeat`` times (3 by default) and its shortest pass counts,
since other work on a shared machine only ever lengthens a pass; every pass is printed. The split of
tumble's steps into flights and contact steps is printed beside it, since a contact step costs
more than a flight in both engines.

Beside the whole run, the same comparison over the first ``--window`` seconds (10 by default;
0 leaves it out), both engines for that time only, named as such: those seconds are mostly
flights down the slope, cheaper per step than the run-out's contacts, so the ratio there is
not the whole run's. Then the whole run's time split by step kind as the run takes it: the
kernel in teams once more over the same chunks, each part read with the processor's cycle
counter (:func:`run_split`: the flights taken in SIMD lanes, the flights and the contact steps
left to ``rock_step`` one rock at a time), and what the ratio would be with the contact steps
at no cost or vectorised without loss. Last, the parts of a contact step, timed on the states
of 10 real trajectories replayed one step at a time (:func:`contact_step.profile`).

    pip install -e ".[bench]"          # MuJoCo 4.0.0
    python benchmarks/mujoco_speed.py [--rocks 1000] [--mujoco-rocks 200] [--t-max SECONDS]
        [--mujoco-t-max 20] [--window 10] [--threads 2] [--scheme implicit] [--repeat 3]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from tumble._jit import cycle_rate, cycles, get_threads, jit, set_threads
from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble, teams
from tumble.rockfall.ensemble.lanes import LANES
from tumble.rockfall.ensemble.sizes import VISIT_CAPACITY
from tumble.rockfall.release import Release, ReleaseStates
from tumble.rockfall.soil import SCENARIO_SOILS
from tumble.rockfall.step.model import Options

DT = 0.002
GRAVITY = 9.81


#: the soil of the workload: slope40's own (Lu et al. 2019's friction, no rolling resistance and
#: no scar layer), which is also what MuJoCo's Coulomb contact can be compared with
SOIL = SCENARIO_SOILS["slope40"]


def _mujoco():
    try:
        import mujoco
        from mujoco import rollout
    except ImportError:
        sys.exit(
            "benchmarks/mujoco_speed.py: error: MuJoCo is not installed; "
            'run pip install -e ".[bench]"'
        )
    return mujoco, rollout


def mujoco_model(terrain: Terrain, rock: Rock, mu: float, rocks: int = 1):
    """``rocks`` free rocks over the terrain's height field (no contact between rocks): the
    MuJoCo model, its height data set."""
    mujoco, _ = _mujoco()
    heights = np.asarray(terrain.heights, dtype=np.float64)
    ny, nx = heights.shape
    z_lo, z_hi = float(heights.min()), float(heights.max())
    rx = 0.5 * (nx - 1) * terrain.dx
    ry = 0.5 * (ny - 1) * terrain.dy
    cx, cy = terrain.x0 + rx, terrain.y0 + ry
    vertices = " ".join(f"{v:.9g}" for v in np.asarray(rock.vertices).ravel())
    a, b, c = (float(v) for v in rock.inertia)
    body = f"""
    <body name="rock{{}}">
      <freejoint/>
      <inertial pos="0 0 0" mass="{rock.mass}" diaginertia="{a} {b} {c}"/>
      <geom type="mesh" mesh="rock" contype="1" conaffinity="0" friction="{mu} 0 0"
            condim="3" mass="0"/>
    </body>"""
    bodies = "".join(body.format(k) for k in range(rocks))
    xml = f"""
<mujoco model="slope40">
  <option timestep="{DT}" gravity="0 0 {-GRAVITY}" cone="elliptic" solver="Newton"/>
  <asset>
    <hfield name="terrain" nrow="{ny}" ncol="{nx}" size="{rx} {ry} {z_hi - z_lo} 1"/>
    <mesh name="rock" vertex="{vertices}"/>
  </asset>
  <worldbody>
    <geom type="hfield" hfield="terrain" pos="{cx} {cy} {z_lo}" contype="0" conaffinity="1"
          friction="{mu} 0 0" condim="3"/>
    {bodies}
  </worldbody>
</mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    # row-major elevation, row j at y = y0 + j dy (checked against terrain heights by ray casts)
    model.hfield_data[:] = ((heights - z_lo) / max(z_hi - z_lo, 1e-12)).ravel()
    return model


def check_height_field(model, terrain: Terrain, n: int = 20, seed: int = 0) -> float:
    """Largest difference (m) between the terrain height and MuJoCo's height field under n
    random points (vertical ray casts): the two must describe the same ground."""
    mujoco, _ = _mujoco()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    rng = np.random.default_rng(seed)
    ny, nx = terrain.heights.shape
    worst = 0.0
    geomid = np.zeros(1, dtype=np.int32)
    for _ in range(n):
        x = terrain.x0 + rng.uniform(0.05, 0.95) * (nx - 1) * terrain.dx
        y = terrain.y0 + rng.uniform(0.05, 0.95) * (ny - 1) * terrain.dy
        top = 1000.0
        dist = mujoco.mj_ray(
            model, data, np.array([x, y, top]), np.array([0.0, 0.0, -1.0]), None, 1, -1, geomid
        )
        z_mj = top - dist
        z = float(terrain.height(x, y))
        worst = max(worst, abs(z_mj - z))
    return worst


def run_mujoco(model, states, t_max: float, threads: int, batch: int, repeat: int = 1) -> dict:
    """Every release state rolled out for t_max seconds, ``model.nbody - 1`` rocks per model
    (len(states) a multiple of it); rock-steps and wall time, the shortest of ``repeat``
    passes (each pass's in ``wall_times_s``)."""
    mujoco, rollout = _mujoco()
    per_model = model.nbody - 1
    n = len(states) // per_model
    nstep = round(t_max / DT)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    data = mujoco.MjData(model)
    size = mujoco.mj_stateSize(model, spec)
    initial = np.empty((n, size))
    for k in range(n):
        mujoco.mj_resetData(model, data)
        for j in range(per_model):
            rock = k * per_model + j
            data.qpos[7 * j : 7 * j + 3] = states.position[rock]
            data.qpos[7 * j + 3 : 7 * j + 7] = states.orientation[rock]
            data.qvel[6 * j : 6 * j + 3] = states.velocity[rock]
            # free joint: the angular velocity in the body frame, as omega
            data.qvel[6 * j + 3 : 6 * j + 6] = states.omega[rock]
        mujoco.mj_getState(model, data, initial[k], spec)
    datas = [mujoco.MjData(model) for _ in range(threads)]
    # compile-free, but let the thread pool start before the clock
    rollout.rollout(model, datas, initial[:1], nstep=2, persistent_pool=True)
    # FULLPHYSICS: time, then qpos (7 per rock), qvel, ...: the heights of the centres of mass
    heights = 1 + 7 * np.arange(per_model) + 2
    batch = max(1, batch // per_model)
    walls = []
    for _ in range(repeat):
        wall = 0.0
        z_end = []
        for start in range(0, n, batch):
            block = initial[start : start + batch]
            t0 = time.perf_counter()
            out, _ = rollout.rollout(model, datas, block, nstep=nstep, persistent_pool=True)
            wall += time.perf_counter() - t0
            z_end.append(out[:, -1, heights].ravel())
        walls.append(wall)
    rollout.shutdown_persistent_pool()
    rocks = n * per_model
    return {
        "rocks": rocks,
        "rocks_per_model": per_model,
        "rock_steps": rocks * nstep,
        "wall_time_s": min(walls),
        "wall_times_s": walls,
        "z_end": np.concatenate(z_end),
    }


def run_tumble(
    terrain, rock, states, scheme: str, t_max: float, threads: int, seed: int, repeat: int = 1
) -> dict:
    """The ensemble run ``repeat`` times (the same numbers each time); rock-steps and the
    shortest wall time (each pass's in ``wall_times_s``)."""
    ensemble = Ensemble(
        terrain, rock, Soil.preset(SOIL), states, scheme=scheme, seed=seed, t_max=t_max
    )
    ensemble.warm_up()
    walls = []
    kernel_walls = []
    steps = set()
    previous = set_threads(threads)
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            result = ensemble.run(threads=threads)
            walls.append(time.perf_counter() - t0)
            s = result.summary
            steps.add(int(s["rock_steps"]))
            # the same chunks' kernels alone: the steps and their bookkeeping, no reduction
            t0 = time.perf_counter()
            for start, stop in ensemble.chunks():
                ensemble._kernel(np.arange(start, stop), VISIT_CAPACITY)
            kernel_walls.append(time.perf_counter() - t0)
        # once more with the team's probe: the run's own time split by step kind
        probe = np.zeros((threads, teams.N_PROBE), dtype=np.int64)
        for start, stop in ensemble.chunks():
            ensemble._kernel(np.arange(start, stop), VISIT_CAPACITY, probe=probe)
    finally:
        set_threads(previous)
    if len(steps) != 1:
        raise RuntimeError(f"the passes took different numbers of steps: {sorted(steps)}")
    return {
        "rocks": len(states),
        "rock_steps": steps.pop(),
        "wall_time_s": min(walls),
        "wall_times_s": walls,
        "kernel_wall_time_s": min(kernel_walls),
        "contact_step_fraction": float(s["contact_step_fraction"]),
        "probe": [int(x) for x in probe.sum(axis=0)],
    }


@jit
def _reads(n: int) -> tuple[int, int]:
    odd = 0
    t0 = cycles()
    for _ in range(n):
        odd += cycles() & 1
    return cycles() - t0, odd


def read_ticks(n: int = 1_000_000) -> float:
    """What one reading of the cycle counter costs, in its own ticks (the best of three loops
    of ``n`` readings)."""
    _reads(10)
    return min(_reads(n)[0] for _ in range(3)) / n


#: the ratio issue #49 asks of the whole run
TARGET = 40.0


def run_split(ours: dict, rate: float, ratio: float | None = None) -> dict:
    """The run's own time by step kind, from its probe pass (:func:`run_tumble`): the kernel in
    teams as runs take it, each part read with the cycle counter (``rate`` ticks a second,
    :func:`tumble._jit.cycle_rate`), less the counter's own readings (:func:`read_ticks`, one a
    part each time it is timed). With the whole run's ``ratio``: what it would be if the
    contact steps cost nothing, or an eighth of what they cost (eight float64 lanes of a
    512-bit vector, every lane busy, nothing lost to gathering the steps into lanes and
    scattering them back: the most that SIMD lanes can give them), and that with the flights
    left to ``rock_step`` at the cost of a flight in the lanes, by Amdahl's law on these
    shares; and what the contact steps would have to cost for :data:`TARGET`."""
    p = ours["probe"]
    steps = p[teams.P_N_TAKEN] + p[teams.P_N_FLIGHT] + p[teams.P_N_CONTACT]
    if p[teams.P_TOTAL] <= 0 or steps <= 0:
        print("\nthe run's time by step kind: not measured (the run did not run in teams)")
        return {}
    read = read_ticks()
    team_steps = p[teams.P_TEAM_STEPS]
    # (ticks less the readings, steps of the kind, times the part was timed)
    parts = {
        "flights taken in the SIMD lanes, with their bookkeeping": (
            p[teams.P_LANES] - read * team_steps,
            p[teams.P_N_TAKEN],
            team_steps,
        ),
        "flights left to rock_step": (
            p[teams.P_FLIGHT] - read * p[teams.P_N_FLIGHT],
            p[teams.P_N_FLIGHT],
            p[teams.P_N_FLIGHT],
        ),
        "contact steps": (
            p[teams.P_CONTACT] - read * p[teams.P_N_CONTACT],
            p[teams.P_N_CONTACT],
            p[teams.P_N_CONTACT],
        ),
    }
    total = p[teams.P_TOTAL] - read * (1 + sum(timed for _, _, timed in parts.values()))
    other = total - sum(ticks for ticks, _, _ in parts.values())
    print(
        f"\nthe run's time by step kind (the kernel in teams, {LANES} rocks a team, "
        f"{p[teams.P_ACTIVE] / team_steps:.2f} moving; the cycle counter at {rate / 1e9:.3f} GHz, "
        f"{1e9 * read / rate:.1f} ns a reading, taken out): {1e9 * total / rate / steps:.1f} ns "
        f"a rock-step"
    )
    out = {"ns_per_step": 1e9 * total / rate / steps, "read_ns": 1e9 * read / rate}
    for name, (ticks, n, timed) in parts.items():
        each = "a team step" if name.startswith("flights taken") else "each"
        print(
            f"  {name}: {ticks / total:.1%} of the time in {n / steps:.1%} of the steps, "
            f"{1e9 * ticks / rate / max(timed, 1):.1f} ns {each}"
        )
        out[name] = {"time_share": ticks / total, "step_share": n / steps}
    print(f"  the rest (rocks starting and ending, the loop): {other / total:.1%} of the time")
    lanes, flights, contact = (ticks / total for ticks, _, _ in parts.values())
    out["contact_time_share"] = contact
    if ratio is not None:
        free = ratio / (1.0 - contact)
        eighth = ratio / (1.0 - contact + contact / 8.0)
        # the flights left to rock_step at the lanes' cost of a flight taken there
        in_lanes = lanes * p[teams.P_N_FLIGHT] / max(p[teams.P_N_TAKEN], 1)
        both = ratio / (1.0 - contact + contact / 8.0 - flights + in_lanes)
        print(
            f"  the whole run's ratio with the contact steps at no cost: {free:.1f}x; at an "
            f"eighth of their cost (eight lanes, every lane busy): {eighth:.1f}x; and the "
            f"flights left to rock_step at the cost of one in the lanes too: {both:.1f}x"
        )
        out.update(ratio_contact_free=free, ratio_contact_eight_lanes=eighth, ratio_both=both)
        # what 40x asks of the contact steps, the flights left to rock_step in lanes besides
        allowed = ratio / TARGET - (1.0 - contact - flights + in_lanes)
        if allowed <= 0.0:
            print(f"  {TARGET:g}x is out of reach even with the contact steps at no cost")
        else:
            print(
                f"  {TARGET:g}x, with those flights in lanes at no loss, needs the contact steps "
                f"at {allowed / contact:.1%} of their cost: eight lanes "
                f"{1.0 / (8.0 * allowed / contact):.0%} efficient"
            )
            out["contact_cost_for_target"] = allowed / contact
    return out


def default_t_max() -> float:
    """The ensemble's own t_max: the whole run, every rock to rest (or to that time)."""
    return float(Options().t_max)


def compare(label: str, ours: dict, theirs: dict, args) -> float:
    """Print both engines' rates over one workload and return tumble's over MuJoCo's."""
    threads = args.threads or get_threads()
    rate_ours = ours["rock_steps"] / ours["wall_time_s"]
    rate_theirs = theirs["rock_steps"] / theirs["wall_time_s"]
    print(f"\n{label}")
    print(
        f"{'':<22}{'rocks':>7}{'rock-steps':>13}{'wall s':>9}{'M steps/s':>11}{'ns/step/core':>14}"
    )
    for name, r, rate in (
        (f"tumble {args.scheme}", ours, rate_ours),
        ("MuJoCo", theirs, rate_theirs),
    ):
        print(
            f"{name:<22}{r['rocks']:7d}{r['rock_steps']:13d}{r['wall_time_s']:9.2f}"
            f"{rate / 1e6:11.3f}{1e9 * threads / rate:14.1f}"
        )
    for name, r in ((f"tumble {args.scheme}", ours), ("MuJoCo", theirs)):
        passes = ", ".join(f"{1e9 * threads * w / r['rock_steps']:.1f}" for w in r["wall_times_s"])
        print(f"{name} passes, ns/step/core: {passes}")
    ratio = rate_ours / rate_theirs
    print(f"tumble / MuJoCo rock-steps per second ({label}): {ratio:.1f}x")
    return ratio


def time_split(scheme: str, seed: int) -> dict:
    """Each step kind's share of the steps and of the time, from :func:`contact_step.profile`:
    flights, contact steps of a moving rock, and the rest phase (the last ``rest_time`` of a
    rock that stops, every step of it a contact step), each step replayed one at a time. What
    the whole run's ratio would be without a kind comes from the run's own split
    (:func:`run_split`): the replay times every flight by ``rock_step``, where the run takes
    most of them in SIMD lanes."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from contact_step import profile

    print(
        "\nwhere a rock-step's time goes, its steps replayed one at a time "
        "(benchmarks/contact_step.py, 10 rocks, one core)"
    )
    ns = profile(rocks=10, scheme=scheme, seed=seed, repeat=3)
    share = ns["contact_share"]
    parts = {
        "flights": (1.0 - share, ns["flight"]),
        "contact steps while moving": (ns["moving_share"], ns["moving"]),
        "the rest phase": (ns["rest_share"], ns["rest"]),
    }
    total = sum(steps * cost for steps, cost in parts.values())
    print("time by step kind:")
    for name, (steps, cost) in parts.items():
        print(f"  {name}: {steps * cost / total:.0%} of the time in {steps:.1%} of the steps")
    return {
        "contact_step_share": share,
        "rest_step_share": ns["rest_share"],
        "flight_ns": ns["flight"],
        "contact_ns": ns["contact"],
        "moving_contact_ns": ns["moving"],
        "rest_ns": ns["rest"],
        "contact_time_share": (total - parts["flights"][0] * parts["flights"][1]) / total,
        "rest_time_share": parts["the rest phase"][0] * parts["the rest phase"][1] / total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=1000, help="rocks run by tumble")
    parser.add_argument("--mujoco-rocks", type=int, default=200, help="rocks run by MuJoCo")
    parser.add_argument(
        "--t-max",
        type=float,
        default=None,
        help="seconds simulated per rock by tumble (default: the whole run, every rock to rest)",
    )
    parser.add_argument(
        "--mujoco-t-max", type=float, default=20.0, help="seconds rolled out per rock by MuJoCo"
    )
    parser.add_argument(
        "--window",
        type=float,
        default=10.0,
        help="also compare both engines over the first WINDOW seconds (0: no window)",
    )
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scheme", choices=("implicit", "explicit"), default="implicit")
    parser.add_argument("--mu", type=float, default=0.55, help="MuJoCo's Coulomb friction")
    parser.add_argument("--batch", type=int, default=100, help="MuJoCo rocks per rollout")
    parser.add_argument(
        "--rocks-per-model",
        type=int,
        default=25,
        help="MuJoCo rocks in one model (25 is faster per rock-step than 1, 10, 100 or 200)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="passes per engine; the shortest wall time of each is compared",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    mujoco, _ = _mujoco()
    threads = args.threads or get_threads()

    terrain = Terrain.scenario("slope40")
    rock = Rock.eota221(mass=780.0)
    release = Release.for_scenario("slope40")
    states = release.draw(terrain, args.rocks, args.seed)
    model = mujoco_model(terrain, rock, args.mu, args.rocks_per_model)

    n = min(args.mujoco_rocks, args.rocks)
    n -= n % args.rocks_per_model
    first = ReleaseStates(
        states.position[:n], states.orientation[:n], states.velocity[:n], states.omega[:n]
    )
    t_max = args.t_max if args.t_max is not None else default_t_max()
    ours = run_tumble(terrain, rock, states, args.scheme, t_max, threads, args.seed, args.repeat)
    theirs = run_mujoco(model, first, args.mujoco_t_max, threads, args.batch, args.repeat)
    mismatch = check_height_field(model, terrain)
    print(
        f"slope40, EOTA221 780 kg, dt {DT} s, seed {args.seed}, {threads} threads on "
        f"{os.cpu_count()} cores; MuJoCo {mujoco.__version__}; the shortest of {args.repeat} "
        f"passes per engine"
    )
    whole = (
        "the whole run (every rock to rest)" if args.t_max is None else f"t_max {args.t_max:g} s"
    )
    ratio = compare(f"{whole}; MuJoCo {args.mujoco_t_max:g} s per rock", ours, theirs, args)
    print(
        f"height field against the terrain (20 vertical rays): largest difference {mismatch:.3g} m"
    )
    rate_theirs = theirs["rock_steps"] / theirs["wall_time_s"]
    kernel_rate = ours["rock_steps"] / ours["kernel_wall_time_s"]
    print(
        f"tumble's kernel alone (the steps and their bookkeeping, without the reduction to "
        f"rasters and statistics that Ensemble.run adds): {1e9 * threads / kernel_rate:.1f} "
        f"ns/step/core, {kernel_rate / rate_theirs:.1f}x MuJoCo"
    )
    print(f"tumble contact steps: {100 * ours['contact_step_fraction']:.1f} % of its rock-steps")
    below = np.mean(theirs["z_end"] < float(np.min(terrain.heights)) - 1.0)
    print(
        f"MuJoCo rocks below the lowest point of the height field at the end (they left it and "
        f"fell; tumble's rocks stop at rest or leave the DEM): {100 * below:.1f} %"
    )
    window = None
    if args.window > 0:
        ours_w = run_tumble(
            terrain, rock, states, args.scheme, args.window, threads, args.seed, args.repeat
        )
        theirs_w = run_mujoco(model, first, args.window, threads, args.batch, args.repeat)
        window = {
            "tumble": ours_w,
            "mujoco": {k: v for k, v in theirs_w.items() if k != "z_end"},
            "ratio": compare(f"the first {args.window:g} s window only", ours_w, theirs_w, args),
            "window_s": args.window,
        }
    in_run = run_split(ours, cycle_rate(), ratio if args.t_max is None else None)
    split = time_split(args.scheme, args.seed)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "tumble": ours,
                    "mujoco": {k: v for k, v in theirs.items() if k != "z_end"},
                    "ratio": ratio,
                    "kernel_ratio": kernel_rate / rate_theirs,
                    "threads": threads,
                    "t_max_s": t_max,
                    "whole_run": args.t_max is None,
                    "mujoco_t_max_s": args.mujoco_t_max,
                    "window": window,
                    "time_split": split,
                    "run_split": in_run,
                    "mujoco_version": mujoco.__version__,
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
