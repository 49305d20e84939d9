"""Per-rock soils in the ensemble (``Ensemble(soils=..., soil_row=...)``): each rock runs with its
own row, bit-identical to ``simulate`` of that rock with that soil, whatever the chunks and
threads; a table of one soil gives the numbers of the plain ensemble."""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release

N = 6


def slope() -> Terrain:
    x = np.arange(61.0)
    heights = np.broadcast_to(np.maximum(20.0 - x, 0.0) * math.tan(math.radians(40.0)), (31, 61))
    return Terrain.from_array(heights, x0=0.0, y0=-15.0, dx=1.0)


TERRAIN = slope()
STATES = Release(point=(3.0, 0.0), height=1.2, speed_downslope=1.0).draw(TERRAIN, N, 7)
SOILS = (Soil.preset("medium"), Soil.preset("medium", rolling_resistance=0.3), Soil.coulomb(0.3))
ROW = np.array([0, 1, 2, 2, 1, 0])


def ensemble(**kwargs) -> Ensemble:
    return Ensemble(
        TERRAIN, Rock.eota221(mass=780.0), SOILS[0], STATES, t_max=12.0, seed=7, **kwargs
    )


def test_each_rock_runs_with_its_row_as_simulate_with_that_soil():
    ens = ensemble(soils=SOILS, soil_row=ROW)
    chunk = ens.run_chunk(0, N, threads=1)
    for k in range(N):
        assert ens.soil_of(k) is SOILS[ROW[k]]
        alone = ens.trajectory(k)
        assert chunk["steps"][k] == alone.steps, k
        assert np.array_equal(chunk["final_state"][k, :3], alone.position[-1]), k
    # the soils differ enough that rocks of the same release point end apart
    assert not np.array_equal(chunk["final_state"][0], chunk["final_state"][2])


def test_per_rock_soils_give_the_same_numbers_for_any_chunks_and_threads():
    ens = ensemble(soils=SOILS, soil_row=ROW)
    whole = ens.run_chunk(0, N, threads=2)
    parts = [ens.run_chunk(a, b, threads=1) for a, b in ((0, 1), (1, 4), (4, 6))]
    for name in ("status", "steps", "final_state", "maxima"):
        joined = np.concatenate([p[name] for p in parts])
        assert np.array_equal(whole[name], joined, equal_nan=True), name


def test_a_table_of_one_soil_gives_the_plain_numbers():
    plain = ensemble().run_chunk(0, N, threads=1)
    table = ensemble(soils=SOILS[:1], soil_row=np.zeros(N, dtype=np.int64)).run_chunk(0, N, 1)
    for name in ("status", "steps", "final_state", "maxima"):
        assert np.array_equal(plain[name], table[name], equal_nan=True), name
    assert ensemble().fingerprint() != ensemble(soils=SOILS, soil_row=ROW).fingerprint()


def test_bad_soil_tables_are_refused():
    with pytest.raises(ValueError, match="soil_row needs soils"):
        ensemble(soil_row=ROW)
    with pytest.raises(ValueError, match="index the 3 soils"):
        ensemble(soils=SOILS, soil_row=ROW + 1)
    with pytest.raises(ValueError, match="one integer row"):
        ensemble(soils=SOILS, soil_row=ROW[:3])


def test_rock_hulls_of_identical_rocks_are_the_scaled_copies_without_copying():
    """rock_hulls gives, bit for bit, ``hulls[shape_id] * scale`` (NaN padding kept): for rocks
    of several shapes and scales, and for identical rocks (one shape, one scale, 2.5 or 1), where
    it is a view of one hull instead of n copies."""
    from tumble.rockfall.ensemble.tables import rock_hulls

    rng = np.random.default_rng(2)
    hulls = rng.standard_normal((3, 6, 3)) * 10.0 ** rng.integers(-5, 5, (3, 6, 3))
    hulls[1, 4:] = np.nan
    cases = [
        (rng.integers(0, 3, 50), rng.uniform(0.5, 2.0, 50)),
        (np.full(50, 1), np.full(50, 2.5)),
        (np.zeros(50, dtype=np.int64), np.ones(50)),
        (np.zeros(0, dtype=np.int64), np.ones(0)),
    ]
    for shape_id, scale in cases:
        expected = hulls[shape_id] * scale[:, None, None]
        got = rock_hulls(hulls, shape_id, scale)
        np.testing.assert_array_equal(got, expected)
        assert got.shape == expected.shape
    got = rock_hulls(hulls, np.full(50, 1), np.full(50, 2.5))
    assert got.strides[0] == 0  # one hull, not 50


def test_initial_states_formed_in_blocks_are_those_of_one_call(monkeypatch):
    """initial_rock_states, 7 rocks at a time, gives bit for bit the states of one
    initial_states call over all 50 rocks (two shapes, random scales, places and orientations);
    with rock 30 below the ground it raises the message of that one call (rock 30, not its
    index in its block)."""
    from tumble.rockfall.ensemble import tables
    from tumble.rockfall.release import ReleaseStates
    from tumble.rockfall.step.model import initial_states

    monkeypatch.setattr(tables, "STATE_BLOCK", 7)
    n = 50
    states = Release(line=((2.0, -8.0), (4.0, 8.0)), height=2.0).draw(TERRAIN, n, 3)
    shapes = [Rock.eota221(mass=780.0), Rock.box(0.4, 0.3, 0.2)]
    hulls = np.full((2, 24, 3), np.nan)
    for i, s in enumerate(shapes):
        hulls[i, : s.n_vertices] = s.vertices
    rng = np.random.default_rng(1)
    shape_id, scale = rng.integers(0, 2, n), rng.uniform(0.5, 1.2, n)
    model = ensemble()._packed["model"]
    args = (states.position, states.orientation, states.velocity, states.omega)
    one_call = initial_states(model, hulls[shape_id] * scale[:, None, None], *args)
    blocks = tables.initial_rock_states(model, hulls, shape_id, scale, states)
    np.testing.assert_array_equal(blocks, one_call)

    position = states.position.copy()
    position[30, 2] -= 5.0
    below = ReleaseStates(position, *args[1:], states.lift, states.moves)
    with pytest.raises(ValueError) as one:
        initial_states(model, hulls[shape_id] * scale[:, None, None], position, *args[1:])
    assert str(one.value).startswith("rock 30: ")
    with pytest.raises(ValueError) as blocked:
        tables.initial_rock_states(model, hulls, shape_id, scale, below)
    assert str(blocked.value) == str(one.value)
