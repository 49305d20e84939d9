"""Local solutions of the contact solver against the equations they solve."""

import math

import numpy as np
import pytest

from tumble.rockfall.step.local_solutions import PAIR_REGULARISATION, pair_setup, sliding


def as_rows(m):
    return tuple(tuple(float(x) for x in row) for row in m)


def delassus(seed, symmetric=True):
    """A 6x6 Delassus-like matrix W^T M^-1 W of two contacts on a random rigid body (rank 6),
    or, with ``symmetric=False``, with a non-symmetric M^-1 as in the explicit scheme."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(6, 6))
    m_inv = np.diag(rng.uniform(0.5, 2.0, 6))
    if not symmetric:
        m_inv[3:, 3:] += 0.1 * (lambda a: a - a.T)(rng.normal(size=(3, 3)))
    return w.T @ m_inv @ w


@pytest.mark.parametrize(("seed", "symmetric"), [(1, True), (2, True), (3, False)])
def test_pair_setup_solves_the_regularised_system_of_both_contacts(seed, symmetric):
    """x_1 = S^-1 (K xi_0 - xi_1), x_0 = -H (xi_0 + G_01 x_1) solve (G + tau 1) x = -xi
    (numpy's solve, 1e-10 relative)."""
    g = delassus(seed, symmetric)
    xi = np.random.default_rng(seed + 10).normal(size=6)
    h, k, s_inv, ok = pair_setup(
        as_rows(g[:3, :3]), as_rows(g[3:, 3:]), as_rows(g[:3, 3:]), as_rows(g[3:, :3])
    )
    assert ok
    h, k, s_inv = np.array(h), np.array(k), np.array(s_inv)
    x1 = s_inv @ (k @ xi[:3] - xi[3:])
    x0 = -h @ (xi[:3] + g[:3, 3:] @ x1)
    tau = PAIR_REGULARISATION * np.diag(g).max()
    expected = np.linalg.solve(g + tau * np.eye(6), -xi)
    np.testing.assert_allclose(
        np.r_[x0, x1], expected, rtol=1e-10, atol=1e-10 * abs(expected).max()
    )


def test_pair_setup_of_a_singular_pair_leaves_the_singular_direction_alone():
    """Two contacts at the ends of an edge of a rigid body on flat ground: the 6x6 Delassus matrix
    has the null vector of opposite tangential percussions along the edge. For velocities xi of a
    rigid motion the correction solves G x = -xi to 1e-9 and has no component along the null
    vector beyond round-off over tau."""
    rng = np.random.default_rng(5)
    mass, theta = 2.0, np.array([0.3, 0.5, 0.7])
    arms = [np.array([0.1, -0.4, -0.3]), np.array([-0.1, -0.4, -0.3])]  # edge along x
    frame = np.eye(3)  # n = e_z, t1 = e_x, t2 = e_y (the directions as rows: n, t1, t2)
    frame = frame[[2, 0, 1]]
    w = np.zeros((6, 6))
    for i, r in enumerate(arms):
        for j, d in enumerate(frame):
            w[:, 3 * i + j] = np.r_[d, np.cross(r, d)]
    m_inv = np.diag(np.r_[np.full(3, 1.0 / mass), 1.0 / theta])
    g = w.T @ m_inv @ w
    null = np.array([0, 1, 0, 0, -1, 0]) / math.sqrt(2.0)
    np.testing.assert_allclose(g @ null, 0.0, atol=1e-15)
    xi = w.T @ rng.normal(size=6)  # the contact velocities of a rigid motion
    h, k, s_inv, ok = pair_setup(
        as_rows(g[:3, :3]), as_rows(g[3:, 3:]), as_rows(g[:3, 3:]), as_rows(g[3:, :3])
    )
    assert ok
    x1 = np.array(s_inv) @ (np.array(k) @ xi[:3] - xi[3:])
    x0 = -np.array(h) @ (xi[:3] + g[:3, 3:] @ x1)
    x = np.r_[x0, x1]
    np.testing.assert_allclose(g @ x, -xi, atol=1e-9 * abs(xi).max())
    assert abs(null @ x) < 1e-5 * abs(x).max()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_sliding_solution_satisfies_the_sliding_law(seed):
    """The returned percussion has xi_N = 0, |P_T| = mu P_N and xi_T opposite to P_T
    (xi = G P + b), to 1e-12 relative."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(6, 3))
    g = w.T @ w + 0.1 * np.eye(3)
    mu = 0.3
    # an approach with a large tangential velocity: the sticking trial leaves the cone
    b = np.array([-1.0, 4.0 * rng.normal(), 4.0 * rng.normal()])
    s = -np.linalg.solve(g, b)
    assert s[0] <= 0.0 or math.hypot(s[1], s[2]) > mu * s[0]
    p_n, p_t1, p_t2, ok = sliding(as_rows(g), b[0], b[1], b[2], s[1], s[2], mu)
    assert ok
    p = np.array([p_n, p_t1, p_t2])
    xi = g @ p + b
    scale = abs(b).max()
    assert p_n > 0.0
    assert abs(xi[0]) < 1e-12 * scale
    assert abs(math.hypot(p_t1, p_t2) - mu * p_n) < 1e-12 * p_n
    assert abs(xi[1] * p_t2 - xi[2] * p_t1) < 1e-12 * scale * abs(p).max()
    assert xi[1] * p_t1 + xi[2] * p_t2 <= 0.0
