"""Is the slow growth of QUAT.VI's energy error round-off or the scheme? The same steps in float64
and in 34-digit decimal arithmetic.

QUAT.VI (Betsch & Siebert 2009, Appendix E; ``tumble/freerot/quat_vi.py``) keeps the kinetic
energy of a free body exactly in exact arithmetic, yet in float64 its energy error grows linearly
with the number of steps (7e-13 after 50 s at dt = 0.01 s near the intermediate axis of the
Leine cuboid, 7e-12 after 500 s), where the other energy-conserving schemes stay at a few 1e-14.
This script runs the step of ``quat_vi.py`` (predictor, Newton iteration on the body increment,
momentum update, normalisation) written once for any number type, three ways from the same
initial state:

* the compiled kernel (``tumble.freerot.integrate``),
* the same arithmetic in Python floats (float64, operation for operation as the kernel),
* ``decimal.Decimal`` with 34 significant digits (Newton to 1e-30),
* the same decimal steps with the state (q, mu) rounded to float64 after each, which is the
  rounding a float64 run cannot avoid,

and prints the relative energy error after every ``--report`` steps, then the drift per step
for several Newton tolerances of the kernel, and the energy error of every energy-conserving
scheme over 500 s. If the decimal run keeps the energy to ~1e-30 while float64 drifts by the same
amount per step whatever the tolerance, the growth is accumulated round-off, not the scheme.

    python benchmarks/quat_vi_roundoff.py [--steps 5000] [--report 1000]
"""

from __future__ import annotations

import argparse
import decimal
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tumble.freerot import integrate
from tumble.freerot.dir_em import director_energy
from tumble.freerot.quat_vi import QuatVI

INERTIA = (5.0 / 12.0, 10.0 / 12.0, 13.0 / 12.0)  # Leine et al. 2021: 3 x 2 x 1 m, 1 kg
OMEGA0 = (0.1, 10.0, 0.1)  # near the intermediate axis
DT = 0.01


def qmul(a, b):
    return (
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    )


def cross(a, b):
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


def solve3(m, f):
    """Cramer's rule, as the kernel's ``solve3``."""
    det = (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )
    out = []
    for col in range(3):
        mm = [list(row) for row in m]
        for row in range(3):
            mm[row][col] = f[row]
        out.append(
            (
                mm[0][0] * (mm[1][1] * mm[2][2] - mm[1][2] * mm[2][1])
                - mm[0][1] * (mm[1][0] * mm[2][2] - mm[1][2] * mm[2][0])
                + mm[0][2] * (mm[1][0] * mm[2][1] - mm[1][1] * mm[2][0])
            )
            / det
        )
    return out


def step(inertia, q0, mu0, dt, tol, sqrt: Callable[[Any], Any], one, zero):
    """One QUAT.VI step of a free body in the number type of ``one`` (see quat_vi.py)."""
    pi = qmul((q0[0], -q0[1], -q0[2], -q0[3]), mu0)
    s = one / sqrt(sum(x * x for x in q0))
    pi_n = [s * pi[1], s * pi[2], s * pi[3]]
    k = 4 * one / dt
    h = dt / 4
    r_v = [h * pi_n[i] / inertia[i] for i in range(3)]
    for _ in range(100):
        n2 = sum(x * x for x in r_v)
        r0 = sqrt(one - n2)
        jr = [inertia[i] * r_v[i] for i in range(3)]
        gyro = cross(r_v, jr)
        f = [pi_n[i] - k * (r0 * jr[i] + gyro[i]) for i in range(3)]
        cols = []
        for j in range(3):
            e = [one if i == j else zero for i in range(3)]
            d_r0 = -r_v[j] / r0
            je = [inertia[i] * e[i] for i in range(3)]
            rxje = cross(r_v, je)
            exjr = cross(e, jr)
            cols.append([-k * (r0 * je[i] + d_r0 * jr[i] + rxje[i] + exjr[i]) for i in range(3)])
        jac = [[cols[c][r] for c in range(3)] for r in range(3)]
        d = solve3(jac, f)
        r_v = [r_v[i] - d[i] for i in range(3)]
        if sqrt(sum(x * x for x in d)) <= tol:
            break
    r = (sqrt(one - sum(x * x for x in r_v)), r_v[0], r_v[1], r_v[2])
    q1 = qmul(q0, r)
    norm = sqrt(sum(x * x for x in q1))
    q1 = tuple(x / norm for x in q1)
    fac = 4 * one / dt * sqrt(sum(x * x for x in r) / sum(x * x for x in q0))
    mu1 = qmul(
        q0, (zero, fac * inertia[0] * r[1], fac * inertia[1] * r[2], fac * inertia[2] * r[3])
    )
    return q1, mu1


def energy(inertia, q, mu, sqrt, one):
    """``1/8 Pi . J^-1 Pi`` with ``Pi = G(q) mu / |q|``: the kinetic energy of the state."""
    pi = qmul((q[0], -q[1], -q[2], -q[3]), mu)
    s = one / sqrt(sum(x * x for x in q))
    return sum((s * pi[i + 1]) ** 2 / inertia[i] for i in range(3)) / 8


def run(kind: str, steps: int, report: int) -> list[float]:
    """Relative energy errors after every ``report`` steps, in ``kind`` arithmetic: "float64",
    "decimal", or "stored" (decimal steps, the state rounded to float64 after each)."""
    if kind in ("decimal", "stored"):
        decimal.getcontext().prec = 34
        num = decimal.Decimal
        one, zero = num(1), num(0)
        tol = num("1e-30")

        def sqrt(x):
            return x.sqrt()
    else:

        def num(x):
            return float(x)

        one, zero, tol, sqrt = 1.0, 0.0, 1e-14, math.sqrt
    inertia = tuple(num(repr(x)) for x in INERTIA)
    dt = num(repr(DT))
    w = [num(repr(x)) for x in OMEGA0]
    q = (one, zero, zero, zero)
    mu = qmul(q, (zero, 2 * inertia[0] * w[0], 2 * inertia[1] * w[1], 2 * inertia[2] * w[2]))
    e0 = energy(inertia, q, mu, sqrt, one)
    errors = []
    for n in range(1, steps + 1):
        q, mu = step(inertia, q, mu, dt, tol, sqrt, one, zero)
        if kind == "stored":
            q = tuple(num(float(x)) for x in q)
            mu = tuple(num(float(x)) for x in mu)
        if n % report == 0:
            errors.append(float(energy(inertia, q, mu, sqrt, one) / e0 - 1))
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--report", type=int, default=1000)
    args = parser.parse_args()
    steps, report = args.steps, args.report

    kernel = integrate("quat_vi", INERTIA, OMEGA0, dt=DT, t_end=steps * DT, save_every=report)
    e = kernel.energy()
    columns = {"compiled kernel": list(e[1:] / e[0] - 1.0)}
    names = {
        "float64": "Python float64",
        "decimal": "Python decimal",
        "stored": "decimal, stored f64",
    }
    for kind, label in names.items():
        start = time.perf_counter()
        columns[label] = run(kind, steps, report)
        print(f"# {label}: {time.perf_counter() - start:.1f} s")
    print(f"\nQUAT.VI, I = {INERTIA}, omega0 = {OMEGA0}, dt = {DT} s: relative energy error")
    print(f"{'step':>8} {'t (s)':>8}" + "".join(f" {name:>18}" for name in columns))
    for i in range(steps // report):
        n = (i + 1) * report
        row = "".join(f" {columns[name][i]:>18.2e}" for name in columns)
        print(f"{n:>8} {n * DT:>8.1f}{row}")

    print("\ndrift per step of the compiled kernel over 50 s, against the Newton tolerance and dt")
    print(f"{'tol':>8} {'dt (s)':>8} {'E error':>10} {'per step':>10}")
    for tol in (1e-8, 1e-11, 1e-14, 1e-16):
        for dt in (0.01, 0.005):
            traj = integrate(
                QuatVI(tol=tol, max_iter=100), INERTIA, OMEGA0, dt=dt, t_end=50.0, save_every=1000
            )
            err = float(traj.energy()[-1] / traj.energy()[0] - 1.0)
            print(f"{tol:>8.0e} {dt:>8.3f} {err:>10.2e} {err * dt / 50.0:>10.2e}")
    print("\nrelative energy error of the compiled energy-conserving schemes, dt = 0.01 s")
    print(f"{'scheme':<10}" + "".join(f" {f'{t:g} s':>10}" for t in (5, 50, 500)))
    for name in ("quat_vi", "implicit", "quat_em", "algo_c1", "dir_em"):
        traj = integrate(name, INERTIA, OMEGA0, dt=DT, t_end=500.0, save_every=100)
        # DIR.EM keeps the energy of its director velocities (tumble/freerot/dir_em.py)
        energy = director_energy(traj.state, INERTIA) if name == "dir_em" else traj.energy()
        drift = np.abs(energy / energy[0] - 1.0)
        cells = "".join(f" {drift[traj.t <= t + 1e-9].max():>10.1e}" for t in (5, 50, 500))
        print(f"{name:<10}{cells}")
    eps = float(np.finfo(np.float64).eps)
    print(f"\n(float64 machine epsilon {eps:.2e})")


if __name__ == "__main__":
    main()
