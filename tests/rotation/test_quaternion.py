"""Quaternion and SO(3) maths against scipy.spatial.transform.Rotation and closed forms."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from tumble.rotation import (
    cayley,
    cayley_inverse,
    from_scipy,
    matrix_to_quat,
    quat_conj,
    quat_exp,
    quat_log,
    quat_mul,
    quat_normalize,
    quat_rotate,
    quat_to_matrix,
    rodrigues,
    skew,
    so3_exp,
    so3_log,
    to_scipy,
)

RNG = np.random.default_rng(20260101)
N = 500


def random_quats(n=N):
    return from_scipy(Rotation.random(n, random_state=RNG).as_quat())


def canonical(q):
    """Sign-fixed quaternions (w >= 0) for comparison."""
    return q * np.where(q[..., :1] < 0, -1.0, 1.0)


def test_product_matches_scipy_composition():
    a, b = random_quats(), random_quats()
    ab = quat_mul(a, b)
    ref = Rotation.from_quat(to_scipy(a)) * Rotation.from_quat(to_scipy(b))
    np.testing.assert_allclose(canonical(ab), canonical(from_scipy(ref.as_quat())), atol=1e-14)


def test_rotation_of_vectors_matches_scipy_and_inverse():
    q = random_quats()
    v = RNG.normal(size=(N, 3))
    ref = Rotation.from_quat(to_scipy(q)).apply(v)
    np.testing.assert_allclose(quat_rotate(q, v), ref, atol=1e-13)
    np.testing.assert_allclose(quat_rotate(q, ref, inverse=True), v, atol=1e-13)
    # conj(q) rotates back, q (x) conj(q) is the identity
    np.testing.assert_allclose(quat_rotate(quat_conj(q), ref), v, atol=1e-13)
    np.testing.assert_allclose(quat_mul(q, quat_conj(q)), np.tile([1, 0, 0, 0], (N, 1)), atol=1e-15)


def test_matrix_roundtrip_matches_scipy():
    q = random_quats()
    m = quat_to_matrix(q)
    np.testing.assert_allclose(m, Rotation.from_quat(to_scipy(q)).as_matrix(), atol=1e-14)
    np.testing.assert_allclose(matrix_to_quat(m), canonical(q), atol=1e-14)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_shepperd_at_angle_pi_and_zero(axis):
    rotvec = np.zeros(3)
    rotvec[axis] = np.pi
    m = Rotation.from_rotvec(rotvec).as_matrix()
    q = matrix_to_quat(m)
    expected = np.zeros(4)
    expected[axis + 1] = 1.0
    np.testing.assert_allclose(np.abs(q), expected, atol=1e-15)
    np.testing.assert_allclose(matrix_to_quat(np.eye(3)), [1, 0, 0, 0], atol=0)
    # a generic axis at pi: the diagonal branch is the only accurate one
    n = np.array([1.0, 2.0, -2.0]) / 3.0
    q = matrix_to_quat(Rotation.from_rotvec(np.pi * n).as_matrix())
    np.testing.assert_allclose(np.abs(q), np.abs(np.r_[0.0, n]), atol=1e-15)


def test_exp_log_match_scipy_and_invert():
    v = RNG.normal(size=(N, 3))
    v *= (RNG.uniform(0, np.pi, N) / np.linalg.norm(v, axis=1))[:, None]
    q = quat_exp(v)
    np.testing.assert_allclose(
        canonical(q), canonical(from_scipy(Rotation.from_rotvec(v).as_quat())), atol=1e-15
    )
    np.testing.assert_allclose(quat_log(q), v, atol=1e-13)
    np.testing.assert_allclose(so3_exp(v), Rotation.from_rotvec(v).as_matrix(), atol=1e-14)
    np.testing.assert_allclose(so3_log(so3_exp(v)), v, atol=1e-12)


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-9, 1e-6, 1e-4, np.pi - 1e-9, np.pi])
def test_exp_log_singular_angles(angle):
    n = np.array([0.3, -0.4, np.sqrt(1 - 0.25)])
    v = angle * n
    ref = Rotation.from_rotvec(v)
    np.testing.assert_allclose(so3_exp(v), ref.as_matrix(), atol=1e-15)
    np.testing.assert_allclose(
        canonical(quat_exp(v)), canonical(from_scipy(ref.as_quat())), atol=1e-16
    )
    back = so3_log(so3_exp(v))
    if angle < np.pi - 1e-6:
        np.testing.assert_allclose(back, v, atol=1e-15 + 1e-12 * angle)
    else:  # at pi the sign of the axis is not defined
        np.testing.assert_allclose(np.abs(back), np.abs(v), atol=1e-7)


def test_rodrigues_and_skew():
    axis = np.array([1.0, 1.0, 0.0])
    m = rodrigues(axis, np.pi / 2)
    np.testing.assert_allclose(m @ np.array([1.0, -1.0, 0.0]), [0, 0, -np.sqrt(2)], atol=1e-15)
    w, c = RNG.normal(size=3), RNG.normal(size=3)
    np.testing.assert_allclose(skew(w) @ c, np.cross(w, c), atol=1e-15)


def test_cayley_is_a_rotation_with_tangent_half_angle():
    a = RNG.normal(size=(N, 3)) * 3
    m = cayley(a)
    lhs = np.linalg.solve(np.eye(3) - 0.5 * skew(a), np.eye(3) + 0.5 * skew(a))
    np.testing.assert_allclose(m, lhs, atol=1e-13)
    np.testing.assert_allclose(
        m @ np.swapaxes(m, -1, -2), np.broadcast_to(np.eye(3), m.shape), atol=1e-14
    )
    angle = np.linalg.norm(so3_log(m), axis=-1)
    np.testing.assert_allclose(np.tan(angle / 2), np.linalg.norm(a, axis=-1) / 2, rtol=1e-10)
    np.testing.assert_allclose(cayley_inverse(m), a, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="rotation by pi"):
        cayley_inverse(so3_exp(np.array([np.pi, 0, 0])))


def test_normalize_and_bad_input():
    np.testing.assert_allclose(quat_normalize([2.0, 0, 0, 0]), [1, 0, 0, 0])
    with pytest.raises(ValueError, match="shape"):
        quat_mul(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="NaN"):
        quat_rotate([1, 0, 0, 0], [np.nan, 0, 0])
    with pytest.raises(ValueError, match="zero quaternion"):
        quat_normalize([0, 0, 0, 0])
    with pytest.raises(ValueError, match="shape"):
        matrix_to_quat(np.eye(4))


@pytest.mark.parametrize("case", ["random", "parallel", "antiparallel_x", "antiparallel_z"])
def test_q_between_rotates_b_onto_c(case):
    """The rotation of Leine et al. 2021, eq. 72-73: R b is along c, about the axis b x c."""
    from tumble.rotation.quaternion import q_between, q_rotate

    b = RNG.normal(size=3)
    c = {
        "random": RNG.normal(size=3),
        "parallel": 2.5 * b,
        "antiparallel_x": -3.0 * b,
        "antiparallel_z": None,
    }[case]
    if case == "antiparallel_z":
        b, c = np.array([0.0, 0.1, 2.0]), np.array([0.0, -0.1, -2.0])
    q = q_between(tuple(b), tuple(c))
    assert abs(np.linalg.norm(q) - 1.0) < 1e-15
    rb = np.array(q_rotate(q, tuple(b)))
    np.testing.assert_allclose(rb / np.linalg.norm(rb), c / np.linalg.norm(c), atol=1e-14)
    if case == "random":  # the axis is b x c, so it is left unchanged
        axis = np.cross(b, c)
        np.testing.assert_allclose(q_rotate(q, tuple(axis)), axis, atol=1e-14)
