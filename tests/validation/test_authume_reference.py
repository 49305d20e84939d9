"""The published discrete element trajectories of the Authume data: extraction, reading, scores."""

import csv

import numpy as np
import pytest
from scipy.stats import ks_2samp, wasserstein_distance

from tumble.validation import authume as A


def _data_dir(tmp_path):
    """An otherwise empty data directory that passes the data-set check."""
    (tmp_path / "Geometries" / "STL").mkdir(parents=True)
    return tmp_path


def _trajectory(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savetxt(path, np.asarray(rows, dtype=float))


def test_extraction_keeps_the_last_sample_and_its_speed(tmp_path):
    root = tmp_path / "SIM_Trajectories"
    zeros = [0.0] * 13  # quaternion, angular velocity, force and moment columns
    _trajectory(
        root / "P2" / "SP3A" / "Drop_position_4" / "orientation_12.txt",
        [
            [0.0, 1.0, 200.0, 5.0, 0.0, 0.0, 0.0, *zeros],
            [0.1, 3.0, 190.0, 7.0, 3.0, 0.0, 4.0, *zeros],
        ],
    )
    _trajectory(
        root / "P1" / "SP1A" / "Drop_position_1" / "orientation_2.txt",
        [
            [0.0, 2.0, 300.0, 1.0, 0.0, 0.0, 0.0, *zeros],
            [19.0, 4.0, 250.0, -6.0, 0.0, 0.0, 0.0, *zeros],
        ],
    )
    data_dir = _data_dir(tmp_path / "data")
    out = data_dir / A.REFERENCE_FILE
    assert A.extract_reference_endpoints(root, out) == 2
    with open(out, newline="") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == A.REFERENCE_COLUMNS
    # sorted by profile: P1 first
    assert rows[1][:4] == ["p1", "SP1A", "1", "2"]
    assert rows[2][:4] == ["p2", "SP3A", "4", "12"]
    p2 = A.reference_endpoints("P2", data_dir)
    assert p2.shape.tolist() == ["SP3A"]
    assert (p2.drop[0], p2.orientation[0], p2.time[0]) == (4, 12, 0.1)
    # data frame (x, y up, z) -> tumble (x, -z, y); the speed is |(3, 0, 4)| = 5
    np.testing.assert_allclose(p2.position[0], [3.0, -7.0, 190.0])
    assert p2.speed[0] == 5.0
    assert p2.moving.tolist() == [True]
    p1 = A.reference_endpoints(1, data_dir)
    np.testing.assert_allclose(p1.position[0], [4.0, 6.0, 250.0])
    assert p1.moving.tolist() == [False]


def test_extraction_of_a_folder_without_trajectories_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no P1"):
        A.extract_reference_endpoints(tmp_path, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


def test_missing_table_gives_no_reference(tmp_path):
    data_dir = _data_dir(tmp_path)
    assert A.reference_endpoints("p1", data_dir) is None
    measured = A.measured_endpoints("p1")
    assert A.reference_metrics("p1", measured, data_dir) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("profile,shape\np1,SP1A\n", "expected the columns"),
        (",".join(A.REFERENCE_COLUMNS) + "\np1,SP1A,1,1,19,1,2,nan,0\n", "finite"),
        (",".join(A.REFERENCE_COLUMNS) + "\np1,SP1A,1,1,19,1,2\n", "9 fields"),
        (",".join(A.REFERENCE_COLUMNS) + "\np1,SP9Z,1,1,19,1,2,3,0\n", "unknown block shapes"),
        (",".join(A.REFERENCE_COLUMNS) + "\np1,SP1A,1,1,19,1,2,3,-1\n", "negative speeds"),
        (",".join(A.REFERENCE_COLUMNS) + "\np2,SP1A,1,1,19,1,2,3,0\n", "no rows for profile P1"),
    ],
)
def test_malformed_tables_are_refused_by_name(tmp_path, text, message):
    data_dir = _data_dir(tmp_path)
    path = data_dir / A.REFERENCE_FILE
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        A.reference_endpoints("p1", data_dir)
    assert "rockable_endpoints.csv" in str(err.value)


def test_the_shipped_table_holds_every_release_once_and_rests_on_the_terrain():
    terrain = A.authume_terrain()
    for profile in A.PROFILES:
        reference = A.reference_endpoints(profile)
        keys = set(zip(reference.shape, reference.drop, reference.orientation, strict=True))
        assert len(reference.shape) == len(keys) == 4 * 4 * 64
        assert {k[0] for k in keys} == set(A.BLOCK_NAMES)
        # in tumble's frame the stopped centres of mass lie just above the DEM (a wrong frame
        # would put them tens of metres off): 0.1-0.6 m in the median, a block's half height
        xy = reference.position[:, :2]
        still = terrain.contains(xy[:, 0], xy[:, 1]) & ~reference.moving
        assert still.mean() > 0.9
        above = reference.position[still, 2] - terrain.height(xy[still, 0], xy[still, 1])
        assert 0.1 < np.median(above) < 0.6
        assert np.mean(np.abs(above) < 1.5) > 0.98


def test_reference_scores_are_the_scipy_statistics_of_the_table():
    for profile in A.PROFILES:
        measured = A.measured_endpoints(profile)
        scores = A.reference_metrics(profile, measured)
        reference = A.reference_endpoints(profile)
        simulated = A.profile_coordinates(profile, reference.position)
        observed = A.profile_coordinates(profile, measured.position)
        ks = ks_2samp(simulated[:, 0], observed[:, 0])
        assert scores["ks_statistic"] == float(ks.statistic)
        assert scores["ks_pvalue"] == float(ks.pvalue)
        assert scores["runout_wasserstein_m"] == pytest.approx(
            wasserstein_distance(observed[:, 0], simulated[:, 0]), abs=1e-12
        )
        assert scores["median_runout_simulated_m"] == np.median(simulated[:, 0])
        assert scores["n_simulated"] == 1024
        assert scores["n_moving"] == int(np.sum(reference.speed > A.MOVING_SPEED))
        envelope = A.stop_envelope(reference.position[:, :2])
        inside = envelope.contains(measured.position[:, :2]).mean()
        assert scores["fraction_measured_inside_envelope"] == inside
