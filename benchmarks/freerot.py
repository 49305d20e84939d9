"""Work-precision of the free-rotation schemes and throughput of the compiled kernels.

Prints, for every scheme, the attitude error at T = 1 s against the exact solution on the
Betsch & Siebert body (I = (6, 8, 3), omega0 = (10, 20, 20)) and the CPU time per step and per
run, beside scipy's solve_ivp(DOP853) at several tolerances measured in the same run; then the
steps per second of the compiled explicit and implicit kernels (one core) and their ratio.

    python benchmarks/freerot.py [--steps 2000000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.integrate import solve_ivp

from tumble._jit import jit
from tumble.freerot import STEPPERS, exact, integrate
from tumble.freerot.convergence import attitude_error
from tumble.freerot.explicit import explicit_omega, quaternion_half_step
from tumble.freerot.implicit_midpoint import midpoint_omega, spin_preserving_update
from tumble.rotation import quat_mul
from tumble.rotation.quaternion import q_normalize

INERTIA = np.array([6.0, 8.0, 3.0])
OMEGA0 = np.array([10.0, 20.0, 20.0])
T_END = 1.0
CUBOID = (5 / 12, 10 / 12, 13 / 12)


def rhs(_t, y):
    q, w = y[:4], y[4:]
    return np.concatenate([0.5 * quat_mul(q, np.r_[0.0, w]), -np.cross(w, INERTIA * w) / INERTIA])


def best_of(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def work_precision(ref_q):
    print(f"{'method':<26} {'steps':>8} {'error at T':>12} {'run (s)':>10} {'per step (ns)':>14}")
    for name in STEPPERS:
        steps = [25600, 102400] if name == "explicit" else [100, 400, 1600]
        integrate(name, INERTIA, OMEGA0, dt=T_END / steps[0], t_end=2 * T_END / steps[0])
        for n in steps:
            seconds, traj = best_of(
                lambda n=n, name=name: integrate(
                    name, INERTIA, OMEGA0, dt=T_END / n, t_end=T_END, save_every=n
                )
            )
            err = attitude_error(traj.q[-1], ref_q)
            print(f"{name:<26} {n:>8} {err:>12.3e} {seconds:>10.4f} {1e9 * seconds / n:>14.1f}")
    y0 = np.r_[1.0, 0.0, 0.0, 0.0, OMEGA0]
    for rtol in (1e-6, 1e-8, 1e-10, 1e-12):
        seconds, sol = best_of(
            lambda rtol=rtol: solve_ivp(
                rhs, (0.0, T_END), y0, method="DOP853", rtol=rtol, atol=rtol * 1e-2
            )
        )
        q = sol.y[:4, -1] / np.linalg.norm(sol.y[:4, -1])
        err = attitude_error(q, ref_q)
        n = sol.t.size - 1
        label = f"scipy DOP853 rtol={rtol:.0e}"
        print(f"{label:<26} {n:>8} {err:>12.3e} {seconds:>10.4f} {1e9 * seconds / n:>14.1f}")


@jit
def _explicit_kernel_loop(inertia, n, dt):
    """The explicit rotation kernels as the rockfall engine calls them, on tuples."""
    w = (1e-3, 1e-3, 10.0)
    p = (1.0, 0.0, 0.0, 0.0)
    zero = (0.0, 0.0, 0.0)
    for _ in range(n):
        w1, _ok = explicit_omega(inertia, w, dt, zero)
        p = q_normalize(quaternion_half_step(quaternion_half_step(p, w, 0.5 * dt), w1, 0.5 * dt))
        w = w1
    return p, w


@jit
def _implicit_kernel_loop(inertia, n, dt):
    """The implicit rotation kernels as the rockfall engine calls them, on tuples."""
    w = (1e-3, 1e-3, 10.0)
    p = (1.0, 0.0, 0.0, 0.0)
    zero = (0.0, 0.0, 0.0)
    for _ in range(n):
        w1, _status = midpoint_omega(inertia, w, dt, zero, 1e-14, 50)
        p = spin_preserving_update(p, w, w1, inertia, dt)
        w = w1
    return p, w


def kernel_throughput(n_steps):
    inertia = np.array(CUBOID)
    rates = {}
    for name, loop in (("explicit", _explicit_kernel_loop), ("implicit", _implicit_kernel_loop)):
        loop(inertia, 10, 0.001)
        seconds, _ = best_of(lambda loop=loop: loop(inertia, n_steps, 0.001))
        rates[name] = n_steps / seconds
    print(f"\nrotation kernels alone (as called by the rockfall step), {n_steps} steps, one core:")
    for name, rate in rates.items():
        print(f"  {name:<9} {rate / 1e6:6.2f} million steps/s")
    print(f"  implicit / explicit cost ratio: {rates['explicit'] / rates['implicit']:.2f}")
    return rates


def throughput(n_steps):
    rates = {}
    for name in ("explicit", "implicit", "rk4"):
        integrate(name, CUBOID, (1e-3, 1e-3, 10.0), dt=0.001, t_end=0.01)
        seconds, _ = best_of(
            lambda name=name: integrate(
                name,
                CUBOID,
                (1e-3, 1e-3, 10.0),
                dt=0.001,
                t_end=n_steps * 0.001,
                save_every=n_steps,
            )
        )
        rates[name] = n_steps / seconds
    print(f"\nfull driver (integrate), {n_steps} steps of the Leine cuboid, dt = 1 ms, one core:")
    for name, rate in rates.items():
        print(f"  {name:<9} {rate / 1e6:6.2f} million steps/s")
    print(f"  implicit / explicit cost ratio: {rates['explicit'] / rates['implicit']:.2f}")
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2_000_000)
    args = parser.parse_args()
    ref_q = exact(INERTIA, OMEGA0, (1, 0, 0, 0), np.array([0.0, T_END])).q[-1]
    print("Betsch & Siebert body, attitude error ||R_ref R^T - I||_F at T = 1 s vs exact:\n")
    work_precision(ref_q)
    throughput(args.steps)
    kernel_throughput(args.steps)


if __name__ == "__main__":
    main()
