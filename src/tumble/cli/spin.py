"""``tumble spin``: one body, one or several schemes side by side."""

from __future__ import annotations

import json
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


def add_parser(sub) -> None:
    p = sub.add_parser(
        "spin",
        help="integrate the free rotation of one body with several schemes",
        description=(
            "Integrate the torque-free rotation of one rigid body with one or several schemes "
            "side by side and write trajectories (CSV), invariant drift and figures. Default: the "
            "cuboid of Leine et al. 2021 (3 x 2 x 1 m, 1 kg) near its major axis, explicit vs "
            "implicit, dt = 0.01 s, 20 s."
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
    p.add_argument("--t-end", type=positive_float, default=20.0, help="duration (s)")
    p.add_argument(
        "--save-every", type=positive_int, default=1, help="save every n-th step (default 1)"
    )
    p.add_argument("--out", default="out/spin", help="output directory")
    p.add_argument(
        "--animate",
        metavar="MOVIE",
        help="also write the Poinsot view of the first scheme as a movie (.mp4 or .gif)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from tumble.freerot import integrate
    from tumble.freerot.invariants import relative_drift
    from tumble.io import ResultDir, write_csv
    from tumble.io.provenance import write_provenance
    from tumble.viz.freerot import plot_drift, plot_omega

    if args.animate:
        from tumble.viz.poinsot import animation_path

        animation_path(args.animate)  # refuse a bad path before the work
    inertia, body = body_inertia(args)
    trajectories, timings, rows = [], {}, []
    for name in args.schemes:
        start = time.perf_counter()
        traj = integrate(
            name,
            inertia,
            args.omega0,
            args.q0,
            dt=args.dt,
            t_end=args.t_end,
            save_every=args.save_every,
        )
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
    config = {
        "body": body,
        "inertia": inertia.tolist(),
        "omega0": list(args.omega0),
        "q0": list(args.q0),
        "schemes": list(args.schemes),
        "dt": args.dt,
        "t_end": args.t_end,
        "save_every": args.save_every,
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
        w = ", ".join(f"{v:9.4f}" for v in row["final_omega"])
        print(
            f"{row['scheme']:<10} {row['max_energy_drift']:13.3e} {row['max_spin_drift']:12.3e}"
            f"   ({w})"
        )
    print(f"wrote {args.out}/")
    if args.animate:
        from tumble.viz.poinsot import animate_poinsot

        animate_poinsot(
            trajectories[0], args.animate, title=f"inertia {np.round(inertia, 4).tolist()}"
        )
        print(f"wrote {args.animate}")
    return 0
