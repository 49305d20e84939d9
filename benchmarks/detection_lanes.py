"""The vertex contacts of eight rocks at once, in SIMD lanes: what it would save a contact step.

A contact step of the whole slope40 run spends most of its detection in
:func:`tumble.rockfall.step.detection._vertex_contact`, once per vertex within the gap tolerance
of the plane below the rock (about 60 ns a closed contact at rest, ``benchmarks/contact_step.py``):
the vertex in space, the DEM cell under it (two divisions, four heights), the gap, and for a
closed contact the normal, the tangents (a square root and a division each) and the force
directions of the three contact directions. The contact steps of the ensemble kernel run one
rock at a time; this measures what that stage would cost for eight vertices at a time, held
structure-of-arrays in one flat buffer as :mod:`tumble.rockfall.ensemble.lanes` holds a team,
each lane performing the operations of ``_vertex_contact`` in the same order (the choice of the
tangent's axis and the cell's bounds as selects instead of branches): a first pass in lanes
finds each vertex's cell, its four heights are gathered lane by lane (as ``team_jumps`` has
them), and a second pass in lanes forms the gap, the normal, the tangents and the force
directions.

The vertices are those the contact steps of ``--rocks`` real trajectories evaluate (the states of
:func:`contact_step.trajectory_states`, the plane test of :func:`rock_step`). It prints, per
vertex, the scalar ``_vertex_contact`` called for each in turn and the lanes, and checks that
every lane's gap and force directions equal the scalar row bit for bit.

    python benchmarks/detection_lanes.py [--rocks 10] [--repeat 5]
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

from tumble._jit import jit
from tumble.rockfall.step.contact import (
    C_G,
    C_GAMMA_B,
    C_GAP,
    C_GINV,
    C_MW,
    C_VERTEX,
    C_W,
    NCOL,
    prepare_contacts,
)
from tumble.rockfall.step.detection import _vertex_contact
from tumble.rockfall.step.model import O_GAP_TOL
from tumble.rockfall.step.surface import EDGE_SLACK
from tumble.rotation.quaternion import q_to_matrix

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contact_step import (
    I_BELOW,
    I_MINV,
    I_P,
    I_PLANE,
    I_R,
    I_ROT,
    I_UPRE,
    best_of,
    stage_inputs,
    time_steps,
    trajectory_states,
)

LANES = 8
#: rows of a group's flat buffer (row r of lane l at ``r * LANES + l``): the inputs (r_m, A_IK by
#: rows, the vertex in the body frame), then the outputs (1.0 if closed, 1.0 if inside, the gap,
#: the 18 force directions of row ``C_W`` onwards)
R_M, A_IK, RK, MINV, ROT, UPRE = 0, 3, 12, 15, 16, 19
N_IN = 25
O_CLOSED, O_INSIDE, O_GAP, O_W = N_IN, N_IN + 1, N_IN + 2, N_IN + 3
#: ... and the passes' own rows: the cell's column and row, the local coordinates in it, its
#: four heights; last what prepare_contacts writes (M^-1 W, the Delassus block and its inverse,
#: gamma_N at the start of the step)
T_I, T_J, T_ETA, T_XI, T_H = O_W + 18, O_W + 19, O_W + 20, O_W + 21, O_W + 22
O_MW = T_H + 4
O_G = O_MW + 18
O_GINV = O_G + 9
O_GAMMA = O_GINV + 9
N_ROWS = O_GAMMA + 1


@jit
def near_vertices(inputs: np.ndarray, vertices: np.ndarray, gap_tol: float) -> np.ndarray:
    """The vertex evaluations of the contact steps whose rows are ``inputs``
    (:func:`contact_step.stage_inputs`): one row ``(r_m, A_IK, vertex, k)`` for each vertex that
    :func:`rock_step` would evaluate (within ``gap_tol`` of the plane below the rock)."""
    n = 0
    out = np.empty((inputs.shape[0] * vertices.shape[0], N_IN + 1))
    for i in range(inputs.shape[0]):
        row = inputs[i]
        if row[I_BELOW] == 0.0:
            continue
        a = q_to_matrix((row[I_P], row[I_P + 1], row[I_P + 2], row[I_P + 3]))
        m0, m1, m2, above = row[I_PLANE], row[I_PLANE + 1], row[I_PLANE + 2], row[I_PLANE + 3]
        for k in range(vertices.shape[0]):
            rk = (vertices[k, 0], vertices[k, 1], vertices[k, 2])
            if above + (m0 * rk[0] + m1 * rk[1] + m2 * rk[2]) > gap_tol:
                continue
            e = out[n]
            e[R_M], e[R_M + 1], e[R_M + 2] = row[I_R], row[I_R + 1], row[I_R + 2]
            for j in range(3):
                for c in range(3):
                    e[A_IK + 3 * j + c] = a[j][c]
            e[RK], e[RK + 1], e[RK + 2] = rk
            e[MINV] = row[I_MINV]
            for c in range(3):
                e[ROT + c] = row[I_ROT + c]
            for c in range(6):
                e[UPRE + c] = row[I_UPRE + c]
            e[N_IN] = k
            n += 1
    return out[:n].copy()


@jit
def scalar(heights, grid, entries, gap_tol, contacts, reps, prepare):
    """``_vertex_contact`` for every entry in turn, then (``prepare``) ``prepare_contacts`` of
    its row; returns a checksum."""
    total = 0.0
    for _ in range(reps):
        for i in range(entries.shape[0]):
            e = entries[i]
            a = (
                (e[A_IK], e[A_IK + 1], e[A_IK + 2]),
                (e[A_IK + 3], e[A_IK + 4], e[A_IK + 5]),
                (e[A_IK + 6], e[A_IK + 7], e[A_IK + 8]),
            )
            closed, _ = _vertex_contact(
                heights,
                grid[0],
                grid[1],
                grid[2],
                grid[3],
                (e[R_M], e[R_M + 1], e[R_M + 2]),
                a,
                (e[RK], e[RK + 1], e[RK + 2]),
                int(e[N_IN]),
                gap_tol,
                contacts,
                0,
            )
            if prepare:
                rot = ((e[ROT], 0.0, 0.0), (0.0, e[ROT + 1], 0.0), (0.0, 0.0, e[ROT + 2]))
                u = (e[UPRE], e[UPRE + 1], e[UPRE + 2], e[UPRE + 3], e[UPRE + 4], e[UPRE + 5])
                prepare_contacts(contacts, closed, e[MINV], rot, u)
            total += closed + contacts[0, C_GAP] + contacts[0, C_GAMMA_B]
    return total


@jit(inline="always")
def _cells(buf: np.ndarray, grid: tuple, nx: int, ny: int) -> None:
    """First pass, in lanes: the vertex in space, its height offset and the DEM cell under it
    (:func:`tumble.rockfall.step.surface._cell_uv`'s coordinates and bounds)."""
    x0, y0, dx, dy = grid
    for lane in range(LANES):
        r0 = buf[R_M * LANES + lane]
        r1 = buf[(R_M + 1) * LANES + lane]
        k0 = buf[RK * LANES + lane]
        k1 = buf[(RK + 1) * LANES + lane]
        k2 = buf[(RK + 2) * LANES + lane]
        px = r0 + (
            buf[A_IK * LANES + lane] * k0
            + buf[(A_IK + 1) * LANES + lane] * k1
            + buf[(A_IK + 2) * LANES + lane] * k2
        )
        py = r1 + (
            buf[(A_IK + 3) * LANES + lane] * k0
            + buf[(A_IK + 4) * LANES + lane] * k1
            + buf[(A_IK + 5) * LANES + lane] * k2
        )
        u = (px - x0) / dx
        v = (py - y0) / dy
        in_box = (
            (u >= -EDGE_SLACK)
            & (v >= -EDGE_SLACK)
            & (u <= nx - 1 + EDGE_SLACK)
            & (v <= ny - 1 + EDGE_SLACK)
        )
        i = min(int(u), nx - 2) if in_box else 0
        j = min(int(v), ny - 2) if in_box else 0
        buf[T_I * LANES + lane] = i
        buf[T_J * LANES + lane] = j
        buf[T_ETA * LANES + lane] = u - i
        buf[T_XI * LANES + lane] = v - j
        buf[O_INSIDE * LANES + lane] = 1.0 if in_box else 0.0


@jit(inline="always")
def _contacts(buf: np.ndarray, dx: float, dy: float, gap_tol: float) -> None:
    """Last pass, in lanes: the gap, the normal, the tangents and the force directions of
    :func:`_vertex_contact`, in its order of operations."""
    for lane in range(LANES):
        r2 = buf[(R_M + 2) * LANES + lane]
        a00 = buf[A_IK * LANES + lane]
        a01 = buf[(A_IK + 1) * LANES + lane]
        a02 = buf[(A_IK + 2) * LANES + lane]
        a10 = buf[(A_IK + 3) * LANES + lane]
        a11 = buf[(A_IK + 4) * LANES + lane]
        a12 = buf[(A_IK + 5) * LANES + lane]
        a20 = buf[(A_IK + 6) * LANES + lane]
        a21 = buf[(A_IK + 7) * LANES + lane]
        a22 = buf[(A_IK + 8) * LANES + lane]
        k0 = buf[RK * LANES + lane]
        k1 = buf[(RK + 1) * LANES + lane]
        k2 = buf[(RK + 2) * LANES + lane]
        h00 = buf[T_H * LANES + lane]
        h10 = buf[(T_H + 1) * LANES + lane]
        h01 = buf[(T_H + 2) * LANES + lane]
        h11 = buf[(T_H + 3) * LANES + lane]
        eta = buf[T_ETA * LANES + lane]
        xi = buf[T_XI * LANES + lane]
        dz = a20 * k0 + a21 * k1 + a22 * k2
        inside = (
            (buf[O_INSIDE * LANES + lane] == 1.0)
            & (h00 == h00)
            & (h10 == h10)
            & (h01 == h01)
            & (h11 == h11)
        )
        z = (
            h00 * (1.0 - eta) * (1.0 - xi)
            + h10 * eta * (1.0 - xi)
            + h01 * (1.0 - eta) * xi
            + h11 * eta * xi
        )
        gap = r2 + dz - z
        # cell_normal
        n_x = -((h10 - h00) * (1.0 - xi) + (h11 - h01) * xi) * dy
        n_y = -((h01 - h00) * (1.0 - eta) + (h11 - h10) * eta) * dx
        n_z = dx * dy
        inv = 1.0 / math.sqrt(n_x * n_x + n_y * n_y + n_z * n_z)
        n0, n1, n2 = n_x * inv, n_y * inv, n_z * inv
        # tangent_frame, its choice of axis as selects
        b0, b1, b2 = abs(n0), abs(n1), abs(n2)
        on_x = (b0 <= b1) & (b0 <= b2)
        on_y = ~on_x & (b1 <= b2)
        t0 = 0.0 if on_x else (-n2 if on_y else n1)
        t1 = n2 if on_x else (0.0 if on_y else -n0)
        t2 = -n1 if on_x else (n0 if on_y else 0.0)
        tinv = 1.0 / math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
        u0, u1, u2 = t0 * tinv, t1 * tinv, t2 * tinv
        w0 = n1 * u2 - n2 * u1
        w1 = n2 * u0 - n0 * u2
        w2 = n0 * u1 - n1 * u0
        buf[O_CLOSED * LANES + lane] = 1.0 if inside & (gap <= gap_tol) else 0.0
        buf[O_INSIDE * LANES + lane] = 1.0 if inside else 0.0
        buf[O_GAP * LANES + lane] = gap
        _direction(
            buf, lane, 0, n0, n1, n2, a00, a01, a02, a10, a11, a12, a20, a21, a22, k0, k1, k2
        )
        _direction(
            buf, lane, 1, u0, u1, u2, a00, a01, a02, a10, a11, a12, a20, a21, a22, k0, k1, k2
        )
        _direction(
            buf, lane, 2, w0, w1, w2, a00, a01, a02, a10, a11, a12, a20, a21, a22, k0, k1, k2
        )


@jit(inline="always")
def _direction(buf, lane, d, e0, e1, e2, a00, a01, a02, a10, a11, a12, a20, a21, a22, k0, k1, k2):
    """Force direction ``d`` of a lane: the direction and the lever ``K_r x A^T e``."""
    d0 = a00 * e0 + a10 * e1 + a20 * e2
    d1 = a01 * e0 + a11 * e1 + a21 * e2
    d2 = a02 * e0 + a12 * e1 + a22 * e2
    base = (O_W + 6 * d) * LANES + lane
    buf[base] = e0
    buf[base + LANES] = e1
    buf[base + 2 * LANES] = e2
    buf[base + 3 * LANES] = k1 * d2 - k2 * d1
    buf[base + 4 * LANES] = k2 * d0 - k0 * d2
    buf[base + 5 * LANES] = k0 * d1 - k1 * d0


@jit(inline="always")
def _put3(buf: np.ndarray, row: int, lane: int, a: float, b: float, c: float) -> None:
    buf[row * LANES + lane] = a
    buf[(row + 1) * LANES + lane] = b
    buf[(row + 2) * LANES + lane] = c


@jit(inline="always")
def _dot6(buf: np.ndarray, lane: int, j: int, k: int) -> float:
    """``W_j . M^-1 W_k`` of a lane (``dot6_at``'s order of summation)."""
    w = (O_W + 6 * j) * LANES + lane
    mw = (O_MW + 6 * k) * LANES + lane
    return (
        buf[w] * buf[mw]
        + buf[w + LANES] * buf[mw + LANES]
        + buf[w + 2 * LANES] * buf[mw + 2 * LANES]
        + buf[w + 3 * LANES] * buf[mw + 3 * LANES]
        + buf[w + 4 * LANES] * buf[mw + 4 * LANES]
        + buf[w + 5 * LANES] * buf[mw + 5 * LANES]
    )


@jit(inline="always")
def _prepare(buf: np.ndarray) -> None:
    """The preparation pass, in lanes: :func:`prepare_contacts` of one contact with a diagonal
    rotational matrix (the implicit scheme), in its order of operations."""
    for lane in range(LANES):
        m_inv = buf[MINV * LANES + lane]
        d = (buf[ROT * LANES + lane], buf[(ROT + 1) * LANES + lane], buf[(ROT + 2) * LANES + lane])
        for j in range(3):
            base = (O_W + 6 * j) * LANES + lane
            mb = (O_MW + 6 * j) * LANES + lane
            buf[mb] = m_inv * buf[base]
            buf[mb + LANES] = m_inv * buf[base + LANES]
            buf[mb + 2 * LANES] = m_inv * buf[base + 2 * LANES]
            buf[mb + 3 * LANES] = d[0] * buf[base + 3 * LANES]
            buf[mb + 4 * LANES] = d[1] * buf[base + 4 * LANES]
            buf[mb + 5 * LANES] = d[2] * buf[base + 5 * LANES]
        g00 = _dot6(buf, lane, 0, 0)
        g01 = _dot6(buf, lane, 0, 1)
        g02 = _dot6(buf, lane, 0, 2)
        g11 = _dot6(buf, lane, 1, 1)
        g12 = _dot6(buf, lane, 1, 2)
        g22 = _dot6(buf, lane, 2, 2)
        # symmetric: the entries below the diagonal are those above it
        _put3(buf, O_G, lane, g00, g01, g02)
        _put3(buf, O_G + 3, lane, g01, g11, g12)
        _put3(buf, O_G + 6, lane, g02, g12, g22)
        # inverse3 (the adjugate by the crosses of the rows; a singular block: no interval
        # between lanes, the caller checks det as inverse3 does)
        c00 = g11 * g22 - g12 * g12
        c01 = g12 * g02 - g01 * g22
        c02 = g01 * g12 - g11 * g02
        c10 = g12 * g02 - g01 * g22
        c11 = g22 * g00 - g02 * g02
        c12 = g02 * g01 - g00 * g12
        c20 = g01 * g12 - g02 * g11
        c21 = g02 * g01 - g00 * g12
        c22 = g00 * g11 - g01 * g01
        det = g00 * c00 + g01 * c01 + g02 * c02
        f = 1.0 / det
        _put3(buf, O_GINV, lane, c00 * f, c10 * f, c20 * f)
        _put3(buf, O_GINV + 3, lane, c01 * f, c11 * f, c21 * f)
        _put3(buf, O_GINV + 6, lane, c02 * f, c12 * f, c22 * f)
        w = O_W * LANES + lane
        buf[O_GAMMA * LANES + lane] = (
            buf[w] * buf[UPRE * LANES + lane]
            + buf[w + LANES] * buf[(UPRE + 1) * LANES + lane]
            + buf[w + 2 * LANES] * buf[(UPRE + 2) * LANES + lane]
            + buf[w + 3 * LANES] * buf[(UPRE + 3) * LANES + lane]
            + buf[w + 4 * LANES] * buf[(UPRE + 4) * LANES + lane]
            + buf[w + 5 * LANES] * buf[(UPRE + 5) * LANES + lane]
        )


@jit
def lanes(
    groups: np.ndarray,
    heights: np.ndarray,
    grid: np.ndarray,
    gap_tol: float,
    reps: int,
    prepare: bool,
    kept: np.ndarray,
):
    """The vertex contacts of every group of eight (row g of ``groups``: the ``N_IN`` input rows
    of ``LANES``), then (``prepare``) their preparation, in one flat working buffer that stays
    in the cache as a team's does; the buffer of each group goes to row g of ``kept`` when it
    has as many rows as ``groups``. Returns a checksum."""
    box = (grid[0], grid[1], grid[2], grid[3])
    nx = heights.shape[1]
    ny = heights.shape[0]
    buf = np.zeros(N_ROWS * LANES)
    keep = kept.shape[0] == groups.shape[0]
    total = 0.0
    for _ in range(reps):
        for g in range(groups.shape[0]):
            for c in range(N_IN * LANES):
                buf[c] = groups[g, c]
            _cells(buf, box, nx, ny)
            # the four heights of each lane's cell, gathered lane by lane
            for lane in range(LANES):
                i = int(buf[T_I * LANES + lane])
                j = int(buf[T_J * LANES + lane])
                buf[T_H * LANES + lane] = heights[j, i]
                buf[(T_H + 1) * LANES + lane] = heights[j, i + 1]
                buf[(T_H + 2) * LANES + lane] = heights[j + 1, i]
                buf[(T_H + 3) * LANES + lane] = heights[j + 1, i + 1]
            _contacts(buf, box[2], box[3], gap_tol)
            if prepare:
                _prepare(buf)
            total += buf[O_GAP * LANES] + buf[O_GAMMA * LANES]
            if keep:
                for c in range(N_ROWS * LANES):
                    kept[g, c] = buf[c]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    model, states, follows, _, _ = trajectory_states(args.rocks, "implicit", args.seed)
    heights, grid, vertices, options = model[0], model[1], model[5], model[7]
    gap_tol = float(options[O_GAP_TOL])
    closed, _ = time_steps(model, states, follows, 1)
    entries = near_vertices(stage_inputs(model, states[closed > 0]), vertices, gap_tol)
    n = entries.shape[0] - entries.shape[0] % LANES
    entries = entries[:n]
    groups = np.zeros((n // LANES, N_IN * LANES))
    for r in range(N_IN):
        groups[:, r * LANES : (r + 1) * LANES] = entries[:, r].reshape(-1, LANES)

    # every lane equals the scalar row, bit for bit
    kept = np.zeros((groups.shape[0], N_ROWS * LANES))
    lanes(groups, heights, grid, gap_tol, 1, True, kept)
    contacts = np.zeros((1, NCOL))
    prepared = (C_MW, C_G, C_GINV, C_GAMMA_B)
    rows = (O_MW, O_G, O_GINV, O_GAMMA)
    sizes = (18, 9, 9, 1)
    for idx in range(n):
        g, lane = divmod(idx, LANES)
        closed_s, inside = _vertex_contact(
            heights,
            grid[0],
            grid[1],
            grid[2],
            grid[3],
            tuple(entries[idx, R_M : R_M + 3]),
            tuple(tuple(entries[idx, A_IK + 3 * j : A_IK + 3 * j + 3]) for j in range(3)),
            tuple(entries[idx, RK : RK + 3]),
            int(entries[idx, N_IN]),
            gap_tol,
            contacts,
            0,
        )
        buf = kept[g]
        assert buf[O_INSIDE * LANES + lane] == float(inside)
        assert buf[O_CLOSED * LANES + lane] == float(closed_s)
        if not closed_s:
            continue
        rot = tuple(
            tuple(entries[idx, ROT + j] if c == j else 0.0 for c in range(3)) for j in range(3)
        )
        prepare_contacts(contacts, 1, entries[idx, MINV], rot, tuple(entries[idx, UPRE : UPRE + 6]))
        assert contacts[0, C_VERTEX] == entries[idx, N_IN]
        got = [buf[(O_GAP + c) * LANES + lane] for c in range(19)]
        if not np.array_equal(np.array(got), contacts[0, C_GAP : C_W + 18]):
            raise AssertionError(f"vertex {idx}: the lanes' contact differs from _vertex_contact")
        for col, row, size in zip(prepared, rows, sizes, strict=True):
            got = [buf[(row + c) * LANES + lane] for c in range(size)]
            if not np.array_equal(np.array(got), contacts[0, col : col + size]):
                raise AssertionError(f"vertex {idx}: the lanes' preparation differs")

    reps = max(1, 2_000_000 // max(n, 1))
    share = float(np.mean(kept[:, O_CLOSED * LANES : (O_CLOSED + 1) * LANES]))
    none = np.zeros((0, N_ROWS * LANES))
    print(
        f"slope40, {args.rocks} rocks: {n} vertex evaluations of contact steps "
        f"({share:.0%} closed), one core, best of {args.repeat}; ns a vertex"
    )
    print(f"{'':<36}{'one at a time':>14}{'8 in lanes':>12}{'ratio':>8}")
    for label, prepare in (("detection", False), ("detection and preparation", True)):
        scalar(heights, grid, entries[:8], gap_tol, contacts, 1, prepare)
        t_scalar = best_of(
            lambda p=prepare: scalar(heights, grid, entries, gap_tol, contacts, reps, p),
            args.repeat,
        )
        lanes(groups[:1], heights, grid, gap_tol, 1, prepare, none)
        t_lanes = best_of(
            lambda p=prepare: lanes(groups, heights, grid, gap_tol, reps, p, none), args.repeat
        )
        one, eight = 1e9 * t_scalar / (reps * n), 1e9 * t_lanes / (reps * n)
        print(f"  {label:<34}{one:14.1f}{eight:12.1f}{one / eight:8.2f}")
    print("every lane equal to the scalar rows, bit for bit")


if __name__ == "__main__":
    main()
