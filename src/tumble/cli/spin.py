"""``tumble spin``: one body, one or several schemes side by side."""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from tumble.cli.common import (
    add_body_arguments,
    body_inertia,
    float_tuple,
    positive_float,
    positive_int,
    scheme_list,
)

#: exit status when some schemes failed and the others were written
PARTIAL = 1


def _scheme_name(text: str) -> str:
    from tumble.freerot import SCHEMES

    if text not in SCHEMES:
        raise argparse.ArgumentTypeError(
            f"unknown scheme {text!r}; choose one of {', '.join(SCHEMES)}"
        )
    return text


def _size(text: str) -> tuple[int, int]:
    from tumble.viz.poinsot import movie_size

    try:
        return movie_size(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _fps(text: str) -> int:
    from tumble.viz.poinsot import MAX_FPS, MIN_FPS

    value = positive_int(text)
    if not MIN_FPS <= value <= MAX_FPS:
        raise argparse.ArgumentTypeError(f"expected frames per second in 1..{MAX_FPS}, got {text}")
    return value


def _frames(text: str) -> int:
    from tumble.viz.poinsot import MAX_FRAMES, MIN_FRAMES

    value = positive_int(text)
    if not MIN_FRAMES <= value <= MAX_FRAMES:
        raise argparse.ArgumentTypeError(
            f"expected a number of frames in {MIN_FRAMES}..{MAX_FRAMES}, got {text}"
        )
    return value


def add_parser(sub) -> None:
    p = sub.add_parser(
        "spin",
        help="integrate the free rotation of one body with several schemes",
        description=(
            "Integrate the torque-free rotation of one rigid body with one or several schemes "
            "side by side and write trajectories (CSV), invariant drift and figures. Default: the "
            "cuboid of Leine et al. 2021 (3 x 2 x 1 m, 1 kg) near its major axis, explicit vs "
            "implicit, dt = 0.01 s, 20 s. A scheme that fails (its step has no solution at this "
            "dt) is reported and the others are written: exit status 1 then, 0 when every "
            "scheme ran, 2 for bad input or when no scheme ran."
        ),
    )
    add_body_arguments(p)
    p.add_argument("--omega0", type=float_tuple(3), default=(1e-3, 1e-3, 10.0), help="rad/s, body")
    p.add_argument("--q0", type=float_tuple(4), default=(1.0, 0.0, 0.0, 0.0), help="w,x,y,z")
    p.add_argument(
        "--schemes",
        type=scheme_list,
        default=("explicit", "implicit"),
        help="comma-separated scheme names, or 'all' (default explicit,implicit)",
    )
    p.add_argument("--dt", type=positive_float, default=0.01, help="time step (s)")
    p.add_argument(
        "--t-end",
        type=positive_float,
        default=20.0,
        help="duration (s); the last sample is at --t-end (see --last-step)",
    )
    p.add_argument(
        "--last-step",
        choices=("short", "refuse"),
        default="short",
        help="a --t-end that is not a whole number of steps ends with a shorter last step "
        "(short, the default) or is refused (refuse)",
    )
    p.add_argument(
        "--save-every",
        type=positive_int,
        default=1,
        help="save every n-th step and the last (default 1)",
    )
    p.add_argument("--out", default="out/spin", help="output directory")
    movie = p.add_argument_group("movie of the Poinsot construction")
    movie.add_argument(
        "--animate",
        metavar="MOVIE",
        help="also write the Poinsot view as a movie (.mp4 or .gif) of the exact solution, or of "
        "--animate-scheme",
    )
    movie.add_argument(
        "--animate-scheme",
        type=_scheme_name,
        default="exact",
        metavar="NAME",
        help="what the movie films: 'exact' (default, the motion itself) or a scheme, whose "
        "name and errors against the exact motion are printed on every frame",
    )
    movie.add_argument("--fps", type=_fps, default=24, help="frames per second (default 24)")
    movie.add_argument(
        "--frames",
        type=_frames,
        default=None,
        help="number of frames (default: enough that the body turns at most 20 degrees between "
        "two, 120 to 1200)",
    )
    movie.add_argument(
        "--size",
        type=_size,
        default=(1280, 720),
        metavar="WxH",
        help="frame size in pixels, even numbers (default 1280x720); text scales with it",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from tumble.errors import TumbleError
    from tumble.freerot import integrate
    from tumble.freerot.invariants import relative_drift
    from tumble.io import ResultDir, write_csv
    from tumble.io.provenance import write_provenance
    from tumble.status import KernelError
    from tumble.viz.freerot import plot_drift, plot_omega

    if args.animate:
        from tumble.viz.poinsot import animation_path

        animation_path(args.animate)  # refuse a bad path before the work
    inertia, body = body_inertia(args)
    trajectories, timings, rows, failures = [], {}, [], {}

    def run(name: str):
        return integrate(
            name,
            inertia,
            args.omega0,
            args.q0,
            dt=args.dt,
            t_end=args.t_end,
            save_every=args.save_every,
            last_step=args.last_step,
        )

    for name in args.schemes:
        start = time.perf_counter()
        try:
            traj = run(name)
        except KernelError as err:
            failures[name] = str(err)
            rows.append({"scheme": name, "failed": str(err)})
            print(f"tumble spin: {name} failed: {err}", file=sys.stderr)
            continue
        timings[name] = time.perf_counter() - start
        trajectories.append(traj)
        rows.append(
            {
                "scheme": name,
                "max_energy_drift": float(relative_drift(traj.energy()).max()),
                "max_spin_drift": float(relative_drift(traj.spin()).max()),
                "max_unit_quaternion_error": float(np.abs(traj.quaternion_norm() - 1).max()),
                "final_omega": traj.omega[-1].tolist(),
            }
        )
    if not trajectories:
        raise TumbleError("no scheme ran: " + "; ".join(f"{k}: {v}" for k, v in failures.items()))
    filmed = None
    if args.animate:
        filmed = next((t for t in trajectories if t.scheme == args.animate_scheme), None)
        if filmed is None:
            filmed = run(args.animate_scheme)
    config = {
        "body": body,
        "inertia": inertia.tolist(),
        "omega0": list(args.omega0),
        "q0": list(args.q0),
        "schemes": list(args.schemes),
        "dt": args.dt,
        "t_end": args.t_end,
        "save_every": args.save_every,
        "last_step": args.last_step,
        "failed": failures,
    }
    with ResultDir(args.out) as stage:
        for traj in trajectories:
            spin_ = traj.spin()
            write_csv(
                stage / f"trajectory_{traj.scheme}.csv",
                {
                    "t": traj.t,
                    **{f"q{c}": traj.q[:, i] for i, c in enumerate("wxyz")},
                    **{f"omega_{c}": traj.omega[:, i] for i, c in enumerate("xyz")},
                    "energy": traj.energy(),
                    **{f"spin_{c}": spin_[:, i] for i, c in enumerate("xyz")},
                },
            )
        (stage / "drift.json").write_text(json.dumps(rows, indent=2) + "\n")
        title = f"inertia {np.round(inertia, 4).tolist()}, omega0 {list(args.omega0)}, dt {args.dt}"
        plot_omega(trajectories, stage / "omega.png", title=title)
        plot_drift(trajectories, stage / "drift.png", title=title)
        write_provenance(stage, config=config, timings=timings)
    print(f"{'scheme':<10} {'energy drift':>13} {'spin drift':>12} {'final omega (rad/s)':>36}")
    for row in rows:
        if "failed" in row:
            print(f"{row['scheme']:<10} failed: {row['failed']}")
            continue
        w = ", ".join(f"{v:9.4f}" for v in row["final_omega"])
        print(
            f"{row['scheme']:<10} {row['max_energy_drift']:13.3e} {row['max_spin_drift']:12.3e}"
            f"   ({w})"
        )
    print(f"wrote {args.out}/")
    if filmed is not None:
        _film(args, filmed, inertia)
    return PARTIAL if failures else 0


def _film(args, trajectory, inertia) -> None:
    """Write the movie of ``trajectory`` (the exact solution or the scheme asked for)."""
    from tumble.viz.poinsot import STROBE_DEG, animate_poinsot, plan_frames

    plan = plan_frames(trajectory, args.frames)
    print(
        f"filming {trajectory.scheme}: {len(plan)} frames of {args.size[0]}x{args.size[1]} px "
        f"at {args.fps} fps, the body turns up to {plan.max_turn_deg:.0f} degrees between frames"
    )
    if plan.max_turn_deg > STROBE_DEG:
        print(
            f"tumble spin: the body turns up to {plan.max_turn_deg:.0f} degrees between frames "
            f"and will seem to jump: raise --frames or shorten --t-end",
            file=sys.stderr,
        )
    if plan.repeats:
        print(
            "tumble spin: more frames than saved samples, some frames repeat: lower --frames "
            "or --save-every",
            file=sys.stderr,
        )
    animate_poinsot(
        trajectory,
        args.animate,
        fps=args.fps,
        title=f"inertia {np.round(inertia, 4).tolist()}, ω0 {list(args.omega0)} rad/s",
        size=args.size,
        plan=plan,
    )
    print(f"wrote {args.animate}")
