"""The implicit rotation of several rocks at once, in SIMD lanes: what it would save the kernel.

The ensemble kernel steps one rock at a time, and its implicit rotation (the closed-form
midpoint rule of an axisymmetric rock and the spin-preserving update,
:mod:`tumble.freerot.implicit_midpoint`) is about 30 ns of a 95 ns flight. The same arithmetic
written without branches for ``--lanes`` rocks held structure-of-arrays (the small-angle series
of the rotation quaternion, no antiparallel spin vectors, the symmetry axis along z: the cases
of a slope40 flight) is vectorised by the compiler. This prints, per rock-step:

* the scalar kernels of :mod:`tumble.freerot.implicit_midpoint` chained on one rock (each step
  waits for the one before), and the same called for ``--lanes`` rocks in turn;
* the branch-free lanes;

and checks that every lane is bit for bit the scalar result over ``--steps`` steps (the lanes
perform the same IEEE operations in the same order). The ensemble kernel now steps teams of
rocks this way (:mod:`tumble.rockfall.ensemble.lanes`: the whole free-flight step and its
bookkeeping in lanes, every other step by the scalar path).

    python benchmarks/rotation_lanes.py [--lanes 8] [--steps 1000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from tumble._jit import jit
from tumble.freerot.implicit_midpoint import midpoint_omega, spin_preserving_update
from tumble.rockfall import Rock
from tumble.rotation.quaternion import half_angle_series


@jit
def lanes(
    p: np.ndarray, w: np.ndarray, moment_a: float, moment_c: float, dt: float, n: int
) -> None:
    """``n`` steps of the rocks in the columns of ``p`` (4, L) and ``w`` (3, L), in place: the
    operations of ``midpoint_omega`` (axisymmetric about z) and ``spin_preserving_update``."""
    for _ in range(n):
        for j in range(p.shape[1]):
            w0x, w0y, w0z = w[0, j], w[1, j], w[2, j]
            # the closed-form midpoint rule about z (no torque)
            k = dt * (moment_c - moment_a) * w0z / moment_a
            half = 0.5 * k
            ai = w0x - half * w0y
            aj = w0y + half * w0x
            inv_det = 1.0 / (1.0 + half * half)
            w1x = w0x + (-k * aj) * inv_det
            w1y = w0y + (k * ai) * inv_det
            w1z = w0z
            # exp(dt wm / 2) by its series (no branch: the half angle is small)
            vx = dt * 0.5 * (w0x + w1x)
            vy = dt * 0.5 * (w0y + w1y)
            vz = dt * 0.5 * (w0z + w1z)
            h2 = 0.25 * (vx * vx + vy * vy + vz * vz)
            c, sinc = half_angle_series(h2)
            s = 0.5 * sinc
            qw, qx, qy, qz = c, s * vx, s * vy, s * vz
            bx, by, bz = moment_a * w1x, moment_a * w1y, moment_c * w1z
            ux, uy, uz = moment_a * w0x, moment_a * w0y, moment_c * w0z
            # Theta w0 rotated by the conjugate of q
            tx = 2.0 * (-qy * uz + qz * uy)
            ty = 2.0 * (-qz * ux + qx * uz)
            tz = 2.0 * (-qx * uy + qy * ux)
            cx = ux + qw * tx + (-qy * tz + qz * ty)
            cy = uy + qw * ty + (-qz * tx + qx * tz)
            cz = uz + qw * tz + (-qx * ty + qy * tx)
            kx, ky, kz = by * cz - bz * cy, bz * cx - bx * cz, bx * cy - by * cx
            nbc = math.sqrt((bx * bx + by * by + bz * bz) * (cx * cx + cy * cy + cz * cz))
            qbw = nbc + (bx * cx + by * cy + bz * cz)
            p0, p1, p2, p3 = p[0, j], p[1, j], p[2, j], p[3, j]
            r0 = p0 * qw - p1 * qx - p2 * qy - p3 * qz
            r1 = p0 * qx + p1 * qw + p2 * qz - p3 * qy
            r2 = p0 * qy - p1 * qz + p2 * qw + p3 * qx
            r3 = p0 * qz + p1 * qy - p2 * qx + p3 * qw
            s0 = r0 * qbw - r1 * kx - r2 * ky - r3 * kz
            s1 = r0 * kx + r1 * qbw + r2 * kz - r3 * ky
            s2 = r0 * ky - r1 * kz + r2 * qbw + r3 * kx
            s3 = r0 * kz + r1 * ky - r2 * kx + r3 * qbw
            scale = 1.0 / math.sqrt(s0 * s0 + s1 * s1 + s2 * s2 + s3 * s3)
            p[0, j], p[1, j], p[2, j], p[3, j] = s0 * scale, s1 * scale, s2 * scale, s3 * scale
            w[0, j], w[1, j], w[2, j] = w1x, w1y, w1z


@jit
def scalar(p: np.ndarray, w: np.ndarray, inertia: tuple, dt: float, n: int) -> None:
    """The same steps by the kernels of :mod:`tumble.freerot.implicit_midpoint`, rock by rock."""
    for j in range(p.shape[1]):
        w0 = (w[0, j], w[1, j], w[2, j])
        p0 = (p[0, j], p[1, j], p[2, j], p[3, j])
        for _ in range(n):
            w1, _ = midpoint_omega(inertia, w0, dt, (0.0, 0.0, 0.0), 1e-14, 50)
            p0 = spin_preserving_update(p0, w0, w1, inertia, dt)
            w0 = w1
        p[0, j], p[1, j], p[2, j], p[3, j] = p0
        w[0, j], w[1, j], w[2, j] = w0


@jit
def interleaved(p: np.ndarray, w: np.ndarray, inertia: tuple, dt: float, n: int) -> None:
    """The scalar kernels for every rock in turn at each step (independent chains, no SIMD)."""
    for _ in range(n):
        for j in range(p.shape[1]):
            w0 = (w[0, j], w[1, j], w[2, j])
            p0 = (p[0, j], p[1, j], p[2, j], p[3, j])
            w1, _ = midpoint_omega(inertia, w0, dt, (0.0, 0.0, 0.0), 1e-14, 50)
            p[0, j], p[1, j], p[2, j], p[3, j] = spin_preserving_update(p0, w0, w1, inertia, dt)
            w[0, j], w[1, j], w[2, j] = w1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=8)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    inertia = tuple(float(v) for v in Rock.eota221(mass=780.0).inertia)
    if not inertia[0] == inertia[1]:
        raise SystemExit("the EOTA221 rock is expected to have two equal moments")
    dt = 0.002
    rng = np.random.default_rng(1)
    p_start = rng.normal(size=(4, args.lanes))
    p_start /= np.linalg.norm(p_start, axis=0)
    w_start = rng.normal(size=(3, args.lanes)) * 20.0  # about 3 rot/s, as on slope40

    def run(fn, *extra):
        p, w = p_start.copy(), w_start.copy()
        fn(p, w, *extra, dt, args.steps)
        return p, w

    results = {}
    rates = {}
    for name, fn, extra in (
        ("scalar, one rock after another", scalar, (inertia,)),
        ("scalar, rocks interleaved", interleaved, (inertia,)),
        (f"branch-free, {args.lanes} lanes", lanes, (inertia[0], inertia[2])),
    ):
        run(fn, *extra)  # compile
        best = math.inf
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            results[name] = run(fn, *extra)
            best = min(best, time.perf_counter() - t0)
        rates[name] = 1e9 * best / (args.steps * args.lanes)
    print(f"EOTA221, dt {dt} s, {args.lanes} rocks, {args.steps} steps, best of {args.repeat}")
    for name, ns in rates.items():
        print(f"{name:<36}{ns:8.1f} ns per rock-step")
    reference = results["scalar, one rock after another"]
    for name, (p, w) in results.items():
        same = np.array_equal(p, reference[0]) and np.array_equal(w, reference[1])
        print(f"{name:<36}{'bit-identical' if same else 'DIFFERS'} to the scalar kernels")


if __name__ == "__main__":
    main()
