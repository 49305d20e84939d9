"""Work-precision near the intermediate axis: every scheme against DOP853, and where the time of
the implicit schemes goes.

Part 1. The Leine cuboid (I = (5, 10, 13)/12 kg m^2, Leine et al. 2021, section 4.3) started
near its intermediate axis, omega0 = (0.1, 10, 0.1) rad/s (the default case of the Poinsot
page: it flips every 2.555 s), integrated to T = 50 s (19 flips). For every scheme and several
dt: the attitude error ||R_ref R^T - I||_F and the angular velocity error |w - w_ref| / |w0| at T
against a DOP853 reference (scipy solve_ivp, rtol = atol = 1e-12, on Euler's equations with the
quaternion kinematics), the same errors against the exact elliptic-function solution, and the
CPU time of the run (best of three, one core, only the end state saved) and per step. DOP853 at
looser tolerances is timed the same way, with its number of right-hand-side evaluations. The
first line says how far the reference itself is from the exact solution.

Part 2. Cost per step of the implicit schemes: Newton iterations per step along the same run at
dt = 0.01 s, and the time of one step with a fixed number of iterations (a compiled loop over
the scheme's solve function, fitted as overhead + iterations x cost of an iteration).

    python benchmarks/freerot_intermediate.py [--t-end 50] [--quick]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.integrate import solve_ivp

from tumble._jit import jit
from tumble.freerot import STEPPERS, exact, integrate
from tumble.freerot.algo_c1 import incremental_rotation
from tumble.freerot.convergence import attitude_error
from tumble.freerot.implicit_midpoint import newton_midpoint
from tumble.freerot.quat_em import quat_em_solve
from tumble.freerot.quat_vi import quat_vi_solve
from tumble.rotation import quat_mul
from tumble.status import Status

INERTIA = np.array([5.0, 10.0, 13.0]) / 12.0
OMEGA0 = np.array([0.1, 10.0, 0.1])
Q0 = np.array([1.0, 0.0, 0.0, 0.0])
STEPS_DT = {
    "explicit": (1e-3, 1e-4, 1e-5),
    "rk4": (0.02, 0.01, 0.005, 0.0025),
}
DEFAULT_DT = (0.01, 0.005, 0.0025, 0.00125, 0.000625)


def rhs(_t, y):
    q, w = y[:4], y[4:]
    return np.concatenate([0.5 * quat_mul(q, np.r_[0.0, w]), -np.cross(w, INERTIA * w) / INERTIA])


def best_of(fn, repeat=3):
    best, result = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def dop853(t_end, rtol, atol):
    sol = solve_ivp(rhs, (0.0, t_end), np.r_[Q0, OMEGA0], method="DOP853", rtol=rtol, atol=atol)
    q = sol.y[:4, -1] / np.linalg.norm(sol.y[:4, -1])
    return q, sol.y[4:, -1], sol.nfev, sol.t.size - 1


def errors(q, w, ref_q, ref_w):
    return attitude_error(q, ref_q), np.linalg.norm(w - ref_w) / np.linalg.norm(OMEGA0)


def work_precision(t_end, quick):
    ref_q, ref_w, nfev, _ = dop853(t_end, 1e-12, 1e-12)
    ex = exact(INERTIA, OMEGA0, Q0, np.array([0.0, t_end]))
    ex_q, ex_w = ex.q[-1], ex.omega[-1]
    e_att, e_w = errors(ref_q, ref_w, ex_q, ex_w)
    print(
        f"cuboid I = (5, 10, 13)/12, omega0 = {OMEGA0.tolist()} rad/s, T = {t_end:g} s\n"
        f"reference DOP853 rtol = atol = 1e-12 ({nfev} evaluations): attitude {e_att:.1e}, "
        f"omega {e_w:.1e} from the exact solution\n"
    )
    head = (
        f"{'method':<22} {'dt (s)':>9} {'steps':>9} {'att. vs DOP853':>15} {'w vs DOP853':>12}"
        f" {'att. vs exact':>14} {'|E/E0 - 1|':>11} {'run (s)':>9} {'ns/step':>8}"
    )
    print(head)
    for name in STEPPERS:
        dts = STEPS_DT.get(name, DEFAULT_DT)
        if quick:
            dts = dts[:2]
        integrate(name, INERTIA, OMEGA0, dt=dts[0], t_end=10 * dts[0])  # compile
        for dt in dts:
            n = round(t_end / dt)
            seconds, traj = best_of(
                lambda dt=dt, n=n, name=name: integrate(
                    name, INERTIA, OMEGA0, dt=dt, t_end=t_end, save_every=n
                )
            )
            att, w = errors(traj.q[-1], traj.omega[-1], ref_q, ref_w)
            att_exact, _ = errors(traj.q[-1], traj.omega[-1], ex_q, ex_w)
            energy = traj.energy()
            drift = abs(energy[-1] / energy[0] - 1.0)
            print(
                f"{name:<22} {dt:>9.2e} {n:>9} {att:>15.2e} {w:>12.2e} {att_exact:>14.2e}"
                f" {drift:>11.1e} {seconds:>9.4f} {1e9 * seconds / n:>8.0f}"
            )
    for rtol in (1e-6, 1e-8, 1e-10, 1e-12):
        atol = rtol
        seconds, (q, w, nfev, steps) = best_of(lambda r=rtol, a=atol: dop853(t_end, r, a))
        att, werr = errors(q, w, ref_q, ref_w)
        att_exact, _ = errors(q, w, ex_q, ex_w)
        drift = abs(np.sum(INERTIA * w * w) / np.sum(INERTIA * OMEGA0 * OMEGA0) - 1.0)
        label = f"DOP853 rtol={rtol:.0e}"
        print(
            f"{label:<22} {'adaptive':>9} {steps:>9} {att:>15.2e} {werr:>12.2e} {att_exact:>14.2e}"
            f" {drift:>11.1e} {seconds:>9.4f} {1e9 * seconds / steps:>8.0f}"
        )


@jit
def _time_quat_em(inertia, q, p, dt, iterations, n, potential):
    ok = 0
    for _ in range(n):
        _q1, _p1, status = quat_em_solve(inertia, q, p, dt, 1e-300, iterations, potential)
        ok += status
    return ok


@jit
def _time_quat_vi(inertia, q, p, dt, iterations, n, potential):
    ok = 0
    for _ in range(n):
        _r, status = quat_vi_solve(inertia, q, p, dt, 1e-300, iterations, potential)
        ok += status
    return ok


@jit
def _time_algo_c1(inertia, w, dt, iterations, n):
    ok = 0
    for _ in range(n):
        _theta, _c, status = incremental_rotation(inertia, w, dt, 1e-300, iterations)
        ok += status
    return ok


@jit
def _time_implicit(inertia, w, dt, iterations, n):
    ok = 0
    zero = (0.0, 0.0, 0.0)
    for _ in range(n):
        _w1, status = newton_midpoint(inertia, w, dt, zero, 1e-300, iterations)
        ok += status
    return ok


def iterations_per_step(name, traj, dt):
    """Newton iterations each saved step needs to converge (tol 1e-14), by trying 1, 2, ..."""
    potential = np.zeros(4)
    counts = []
    for y in traj.state[:-1]:
        for k in range(1, 50):
            if name == "quat_em":
                status = quat_em_solve(
                    INERTIA, tuple(y[:4]), tuple(y[7:11]), dt, 1e-14, k, potential
                )[-1]
            elif name == "quat_vi":
                status = quat_vi_solve(
                    INERTIA, tuple(y[:4]), tuple(y[7:11]), dt, 1e-14, k, potential
                )[-1]
            elif name == "algo_c1":
                status = incremental_rotation(INERTIA, tuple(y[4:7]), dt, 1e-14, k)[-1]
            else:
                status = newton_midpoint(INERTIA, tuple(y[4:7]), dt, (0.0, 0.0, 0.0), 1e-14, k)[-1]
            if status == Status.OK:
                counts.append(k)
                break
    return float(np.mean(counts))


def solve_time(name, q, p, w, dt, k, n_calls):
    """ns of one solve of ``name`` with exactly ``k`` Newton iterations (best of three)."""
    potential = np.zeros(4)
    if name == "quat_em":
        args = (_time_quat_em, INERTIA, q, p, dt, k, n_calls, potential)
    elif name == "quat_vi":
        args = (_time_quat_vi, INERTIA, q, p, dt, k, n_calls, potential)
    elif name == "algo_c1":
        args = (_time_algo_c1, INERTIA, w, dt, k, n_calls)
    else:
        args = (_time_implicit, INERTIA, w, dt, k, n_calls)
    loop, rest = args[0], args[1:]
    loop(*rest)
    seconds, _ = best_of(lambda: loop(*rest))
    return 1e9 * seconds / n_calls


def iteration_cost(n_calls):
    dt = 0.01
    print(
        f"\nimplicit steps on the same run at dt = {dt} s: Newton iterations per step (to tol "
        f"1e-14, mean over the run) and the time of one solve with k iterations, fitted as "
        f"overhead + k x (one iteration); {n_calls} solves per k, best of three"
    )
    print(
        f"{'scheme':<10} {'iterations':>10} {'ns/iteration':>13} {'overhead ns':>12} {'ns/step':>9}"
    )
    for name in ("implicit", "algo_c1", "quat_vi", "quat_em"):
        traj = integrate(name, INERTIA, OMEGA0, dt=dt, t_end=5.0, save_every=10)
        mean_iter = iterations_per_step(name, traj, dt)
        y = traj.state[len(traj) // 2]
        q, w = tuple(y[:4]), tuple(y[4:7])
        p = tuple(y[7:11]) if y.size >= 11 else (0.0,) * 4
        ks = (1, 2, 3, 4, 5)
        times = [solve_time(name, q, p, w, dt, k, n_calls) for k in ks]
        slope, intercept = np.polyfit(ks, times, 1)
        print(
            f"{name:<10} {mean_iter:>10.2f} {slope:>13.0f} {intercept:>12.0f}"
            f" {intercept + slope * mean_iter:>9.0f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=50.0)
    parser.add_argument("--quick", action="store_true", help="two step sizes per scheme")
    parser.add_argument("--calls", type=int, default=200_000)
    args = parser.parse_args()
    work_precision(args.t_end, args.quick)
    iteration_cost(args.calls)


if __name__ == "__main__":
    main()
