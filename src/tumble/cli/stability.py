"""``tumble stability``: spectra and verdicts of every scheme about a steady rotation."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import numpy as np

from tumble.cli.common import (
    add_body_arguments,
    body_inertia,
    float_tuple,
    positive_float,
    scheme_list,
)

AXIS_CHOICES = ("major", "intermediate", "minor", "0", "1", "2")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "stability",
        help="eigenvalues of each scheme linearised about steady rotation, with verdicts",
        description=(
            "Linearise one step of each scheme about steady rotation about a principal axis on "
            "the scheme's own state manifold (unit quaternion, momenta, directors and director "
            "velocities) and print the eigenvalues of the angular-velocity pair and the rate, the "
            "spectral radius, the transverse spectral radius (without the trivial eigenvalues "
            "of symmetries, conserved quantities and gauge directions; it decides the verdict), "
            "the trivial eigenvalues and the verdict (stable / neutral / unstable), "
            "next to the continuous eigenvalues (Leine et al. 2021, eq. 44) and, for the explicit "
            "scheme, the closed form of eq. 58-60. With --map, also the spectral radius over a "
            "grid of time steps and inertia ratios for every scheme and axis (PNG and CSV). "
            "Default body: the cuboid of Leine et al. 2021 (3 x 2 x 1 m, 1 kg)."
        ),
    )
    add_body_arguments(p)
    p.add_argument(
        "--axis",
        choices=AXIS_CHOICES,
        default="major",
        help="principal axis of the steady rotation, by name or index (default major)",
    )
    p.add_argument("--rate", type=positive_float, default=10.0, help="spin rate (rad/s)")
    p.add_argument("--dt", type=positive_float, default=0.01, help="time step (s)")
    p.add_argument("--schemes", type=scheme_list, default=None, help="comma-separated; default all")
    p.add_argument("--tol", type=positive_float, default=1e-9, help="tolerance of the verdict")
    p.add_argument("--map", action="store_true", help="also compute and draw stability maps")
    p.add_argument(
        "--map-dt",
        type=float_tuple(2),
        default=(1e-4, 0.5),
        help="smallest and largest time step of the map (s)",
    )
    p.add_argument("--map-points", type=int, default=24, help="grid points per map direction")
    p.add_argument("--out", default=None, help="output directory (default out/stability)")
    p.set_defaults(run=run)


def _complex(z: complex) -> str:
    return f"{z.real:+.8f}{z.imag:+.8f}j"


def _schemes(args) -> tuple[str, ...]:
    from tumble.freerot import STEPPERS

    if args.schemes is None:
        return tuple(STEPPERS)
    if "exact" in args.schemes:
        raise ValueError("'exact' is not a stepping scheme and has no one-step map; drop it")
    return tuple(args.schemes)


def _map_grid(args, inertia):
    from tumble.stability.maps import body_ratio

    lo, hi = args.map_dt
    if not (0 < lo < hi):
        raise ValueError(f"--map-dt must be two increasing positive time steps, got {lo},{hi}")
    if args.map_points < 2:
        raise ValueError(f"--map-points must be at least 2, got {args.map_points}")
    ratio, middle = body_ratio(inertia)
    # stay clear of the flat lamina (triangle equality), where some schemes are singular
    r_max = 4.0 if middle >= 1.0 else min(4.0, 0.98 * (2.0 - middle) / (1.0 - middle))
    dts = np.geomspace(lo, hi, args.map_points)
    ratios = np.linspace(1.02, r_max, args.map_points)
    return dts, ratios, ratio, middle


def run(args) -> int:
    from tumble.stability import (
        continuous_eigenvalues,
        explicit_spectrum_closed_form,
        resolve_axis,
        state_spectrum,
    )
    from tumble.status import KernelError

    inertia, body = body_inertia(args)
    axis = resolve_axis(inertia, int(args.axis) if args.axis.isdigit() else args.axis)
    schemes = _schemes(args)
    rows: list[dict[str, Any]] = []
    timings: dict[str, float] = {}
    for name in schemes:
        start = time.perf_counter()
        try:
            sp = state_spectrum(name, inertia, axis, args.rate, args.dt)
        except KernelError as err:
            rows.append({"scheme": name, "error": str(err)})
            continue
        timings[name] = time.perf_counter() - start
        rows.append(
            {
                "scheme": name,
                "eigenvalues": sp.angular_velocity_eigenvalues,
                "spectral_radius": sp.spectral_radius,
                "transverse_radius": sp.transverse_radius,
                "transverse": sp.transverse,
                "trivial": sp.trivial,
                "dim": sp.dim,
                "verdict": sp.verdict(args.tol),
            }
        )
    continuous = continuous_eigenvalues(inertia, axis, args.rate)
    names = {v: k for k, v in _axis_names(inertia).items()}
    print(
        f"inertia {np.round(inertia, 6).tolist()} kg m^2; steady rotation at {args.rate:g} rad/s "
        f"about axis {axis} ({names[axis]}); dt = {args.dt:g} s"
    )
    print("continuous eigenvalues (eq. 44): " + ", ".join(_complex(z) for z in continuous))
    if "explicit" in schemes:
        closed = explicit_spectrum_closed_form(inertia, axis, args.rate, args.dt)
        print("explicit, closed form (eq. 58-60): " + ", ".join(_complex(z) for z in closed))
    print(
        "lambda_1-3: the angular-velocity pair and the rate; transverse: spectral radius without "
        "the trivial eigenvalues (it decides the verdict)"
    )
    header = (
        f"{'scheme':<9} {'lambda_1':>24} {'lambda_2':>24} {'lambda_3':>24} "
        f"{'radius':>14} {'radius - 1':>11} {'transverse':>14} {'trans. - 1':>11} {'dim':>3}"
        "  verdict"
    )
    print(header)
    for row in rows:
        if "error" in row:
            print(f"{row['scheme']:<9} failed: {row['error']}")
            continue
        lam, rho, tr = row["eigenvalues"], row["spectral_radius"], row["transverse_radius"]
        print(
            f"{row['scheme']:<9} "
            + " ".join(f"{_complex(z):>24}" for z in lam)
            + f" {rho:14.10f} {rho - 1.0:+11.3e} {tr:14.10f} {tr - 1.0:+11.3e} {row['dim']:>3}"
            + f"  {row['verdict']}"
        )
    print(
        "trivial eigenvalues (attitude: 1, exp(+-i theta); neighbouring steady rotation: 1; "
        "gauge: 0) and further transverse ones:"
    )
    for row in rows:
        if "error" in row:
            continue
        extra = [z for z in row["transverse"] if not np.any(np.isclose(z, row["eigenvalues"]))]
        line = f"  trivial {row['scheme']:<9} " + ", ".join(_complex(z) for z in row["trivial"])
        if extra:
            line += "; further transverse " + ", ".join(_complex(z) for z in extra)
        print(line)
    if args.map or args.out is not None:
        _write(args, inertia, body, axis, schemes, rows, continuous, timings)
    return 0


def _axis_names(inertia):
    from tumble.bodies.inertia import axis_order

    return axis_order(inertia)


def _write(args, inertia, body, axis, schemes, rows, continuous, timings) -> None:
    from tumble.io import ResultDir, write_csv
    from tumble.io.provenance import write_provenance

    out = args.out or "out/stability"
    maps: list[Any] = []
    grid: tuple[Any, Any, Any, Any] | None = None
    if args.map:
        from tumble.stability import AXIS_NAMES, stability_map

        dts, ratios, ratio, middle = _map_grid(args, inertia)
        grid = (dts, ratios, ratio, middle)
        for name in schemes:
            start = time.perf_counter()
            for axis_name in AXIS_NAMES[::-1]:
                maps.append(stability_map(name, axis_name, dts, ratios, args.rate, middle))
            timings[f"map_{name}"] = time.perf_counter() - start
            print(f"  map of {name}: {timings[f'map_{name}']:.1f} s", file=sys.stderr)
    config = {
        "body": body,
        "inertia": inertia.tolist(),
        "axis": axis,
        "rate": args.rate,
        "dt": args.dt,
        "schemes": list(schemes),
        "tol": args.tol,
        "map": bool(args.map),
        "map_dt": list(args.map_dt),
        "map_points": args.map_points,
    }
    good = [r for r in rows if "error" not in r]
    with ResultDir(out) as stage:
        columns = {"scheme": np.array([r["scheme"] for r in good], dtype=object)}
        for n in range(3):
            columns[f"re_lambda_{n + 1}"] = np.array([r["eigenvalues"][n].real for r in good])
            columns[f"im_lambda_{n + 1}"] = np.array([r["eigenvalues"][n].imag for r in good])
        columns["spectral_radius"] = np.array([r["spectral_radius"] for r in good])
        columns["transverse_radius"] = np.array([r["transverse_radius"] for r in good])
        columns["manifold_dim"] = np.array([r["dim"] for r in good])
        columns["verdict"] = np.array([r["verdict"] for r in good], dtype=object)
        write_csv(stage / "spectra.csv", columns)
        summary = {
            "continuous_eigenvalues": [[z.real, z.imag] for z in continuous],
            "failed": {r["scheme"]: r["error"] for r in rows if "error" in r},
            "verdicts": {r["scheme"]: r["verdict"] for r in good},
            "transverse_radius": {r["scheme"]: r["transverse_radius"] for r in good},
            "spectra": {
                r["scheme"]: {
                    "manifold_dim": r["dim"],
                    "spectral_radius": r["spectral_radius"],
                    "transverse_eigenvalues": [[z.real, z.imag] for z in r["transverse"]],
                    "trivial_eigenvalues": [[z.real, z.imag] for z in r["trivial"]],
                }
                for r in good
            },
        }
        (stage / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        if maps:
            from tumble.viz.stability import plot_stability_maps

            assert grid is not None  # computed with the maps
            dts, ratios, ratio, middle = grid
            n_r, n_dt = ratios.shape[0], dts.shape[0]
            write_csv(
                stage / "stability_map.csv",
                {
                    "scheme": np.repeat([m.scheme for m in maps], n_r * n_dt).astype(object),
                    "axis": np.repeat([m.axis for m in maps], n_r * n_dt).astype(object),
                    "ratio": np.tile(np.repeat(ratios, n_dt), len(maps)),
                    "dt": np.tile(np.tile(dts, n_r), len(maps)),
                    "spectral_radius": np.concatenate([m.radius.ravel() for m in maps]),
                    "transverse_radius": np.concatenate([m.transverse.ravel() for m in maps]),
                },
            )
            title = (
                "transverse spectral radius of one step about steady rotation at "
                f"{args.rate:g} rad/s; "
                f"inertia (1, 1 + {middle:.3g} (r - 1), r); o = this body at dt {args.dt:g} s"
            )
            plot_stability_maps(maps, stage / "stability_map.png", (args.dt, ratio), title)
        write_provenance(stage, config=config, timings=timings)
    print(f"wrote {out}/")
