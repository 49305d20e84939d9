"""Rockfall ensembles: the same numbers whatever the threads, the chunking or Dask; agreement with a
plain loop over ``simulate``; resumed runs; per-rock random streams; heterogeneous rocks; inputs
refused before any work."""

import math

import numpy as np
import pytest

from tumble._jit import get_threads
from tumble.rockfall import Rock, Soil, Terrain, simulate
from tumble.rockfall.ensemble import (
    RASTERS,
    Ensemble,
    driver,
    read_chunk,
    reduce_chunks,
    run_chunks,
)
from tumble.rockfall.ensemble.cells import FLOOR, RELATIVE_ERROR
from tumble.rockfall.ensemble.rasters import nearest_cells, rasters_from_visits
from tumble.rockfall.release import Release, rock_rng, uniform_quaternion

SOIL = Soil.preset("medium")
TIMING = ("wall_time_s", "rock_steps_per_s")
MAXIMA = (
    "kinetic_energy_max_kJ",
    "velocity_max_ms",
    "rotational_velocity_max_rps",
    "jump_height_max_m",
)


def small_slope() -> Terrain:
    """A 40 degree slope over 20 m, then a flat run-out of 40 m, 30 m wide, 1 m grid."""
    x = np.arange(61.0)
    heights = np.broadcast_to(np.maximum(20.0 - x, 0.0) * math.tan(math.radians(40.0)), (31, 61))
    return Terrain.from_array(heights, x0=0.0, y0=-15.0, dx=1.0)


TERRAIN = small_slope()
RELEASE = Release(point=(3.0, 0.0), height=1.2, speed_downslope=1.0)


def ensemble(n=20, scheme="implicit", seed=7, **kwargs) -> Ensemble:
    return Ensemble(
        TERRAIN,
        Rock.eota221(mass=780.0),
        SOIL,
        RELEASE.draw(TERRAIN, n, seed),
        scheme=scheme,
        t_max=kwargs.pop("t_max", 16.0),
        seed=seed,
        **kwargs,
    )


def same_result(a, b) -> None:
    for name in RASTERS:
        assert np.array_equal(a.rasters[name], b.rasters[name], equal_nan=True), name
    for name, column in a.rocks.items():
        assert np.array_equal(column, b.rocks[name], equal_nan=column.dtype.kind == "f"), name
    strip = {k: v for k, v in a.summary.items() if k not in TIMING}
    assert strip == {k: v for k, v in b.summary.items() if k not in TIMING}


def test_same_numbers_for_any_threads_and_chunking():
    """Bit-identical rasters, per-rock table and statistics with 1 and 2 threads and with chunks
    of 20, 7 and 3 rocks."""
    ens = ensemble()
    before = get_threads()
    one = ens.run(threads=1, chunk_size=20)
    assert get_threads() == before
    two = ens.run(threads=2, chunk_size=7)
    small = ens.run(threads=2, chunk_size=3)
    same_result(one, two)
    same_result(one, small)
    assert one.summary["fractions"]["stopped"] > 0.5  # the rocks reach the flat and stop


def test_chunk_sizes_7_50_1000_give_bit_identical_results_and_the_exact_rasters():
    """60 rocks in chunks of 7, 50 and 1000 (one chunk), and one chunk in the earlier file layout
    (its cell visits): summary, per-rock table and every raster bit-identical. Against the exact
    rasters of all cell visits at once (rasters_from_visits, the reduction before the cell
    accumulators): counts, reach, deposits and maxima bit-identical, the mean within 2^-25 J,
    the percentiles within RELATIVE_ERROR."""
    ens = ensemble(n=60, t_max=8.0)
    results = [ens.run(threads=2, chunk_size=size) for size in (7, 50, 1000)]
    for other in results[1:]:
        same_result(results[0], other)
    result = results[0]
    rock, cell, value = ens.visits(0, ens.n_rocks)
    # a chunk file of the earlier layout (its visits, no cell reduction) reduces alike
    chunk, _, _ = ens._simulate(0, ens.n_rocks)
    old = {**chunk, "visit_rock": rock, "visit_cell": cell, "visit_max": value}
    same_result(result, reduce_chunks(ens, [old], result.summary["wall_time_s"]))
    held = np.isin(result.rocks["status"], ["stopped", "caught"])
    deposits = nearest_cells(TERRAIN, result.rocks["x"][held], result.rocks["y"][held])
    angle = ens.visit_angles(rock, cell)
    exact = rasters_from_visits(
        TERRAIN.shape, ens.n_rocks, rock, cell, value, deposits, angle, TERRAIN
    )
    approximate = ("kinetic_energy_mean", "kinetic_energy_p95", "kinetic_energy_p99")
    for name in RASTERS:
        a, b = exact[name], result.rasters[name]
        assert np.array_equal(np.isnan(a), np.isnan(b)), name
        if name not in (*approximate, "jump_height_p95", "jump_height_normal_p95"):
            assert np.array_equal(a, b, equal_nan=True), name
    ok = np.isfinite(exact["kinetic_energy_mean"])
    np.testing.assert_allclose(
        result.rasters["kinetic_energy_mean"][ok],
        exact["kinetic_energy_mean"][ok],
        rtol=1e-13,
        atol=2.0**-25 * 1e-3,
    )
    for name, floor in (*((n, FLOOR * 1e-3) for n in approximate[1:]), ("jump_height_p95", FLOOR)):
        ok = np.isfinite(exact[name])
        error = np.abs(result.rasters[name][ok] - exact[name][ok])
        assert np.all(error <= RELATIVE_ERROR * np.abs(exact[name][ok]) * (1 + 1e-12) + floor)


def test_dask_local_cluster_gives_the_local_numbers(tmp_path):
    """Chunks computed on a LocalCluster of 2 single-threaded worker processes equal the local
    ones bit for bit."""
    ens = ensemble(n=8, t_max=4.0)
    local = run_chunks(ens, tmp_path / "local", chunk_size=3, progress=False)
    remote = run_chunks(ens, tmp_path / "dask", chunk_size=3, dask="local:2", progress=False)
    assert len(local.chunks) == len(remote.chunks) == 3
    for a, b in zip(local.chunks, remote.chunks, strict=True):
        assert a.keys() == b.keys()
        for name in a:
            assert np.array_equal(a[name], b[name], equal_nan=True), name


def simulate_rock(ens: Ensemble, k: int, terrain: Terrain, rock: Rock, soil: Soil):
    """Rock k of the ensemble run alone by :func:`simulate`, every step saved."""
    return simulate(
        terrain,
        rock,
        soil,
        ens.states.position[k],
        ens.states.orientation[k],
        ens.states.velocity[k],
        ens.states.omega[k],
        scheme=ens.scheme,
        t_max=ens.t_max,
        pgs_tol=ens.pgs_tol,
    )


def reference(ens: Ensemble, rest_speed: float):
    """Per-rock loop over simulate: trajectories of every step, and the ensemble quantities
    recomputed from them with numpy."""
    rows = []
    for k in range(ens.n_rocks):
        traj = simulate_rock(ens, k, TERRAIN, Rock.eota221(mass=780.0), SOIL)
        energy = traj.kinetic_energy()[1:]
        speed = traj.speed()[1:]
        rotation = traj.rotation_speed()[1:]
        flying = ~traj.in_contact[1:]
        # the fall from the release, before the first contact, is not a jump
        jump = np.where(flying & traj.touched[1:], traj.height[1:], np.nan)
        before = ~traj.touched
        drop = traj.height[before].max()
        step = np.rint(traj.t[1:] / traj.dt).astype(int)
        moving = energy > 0.5 * traj.mass * rest_speed**2
        sample = (step % ens.sample_every == 0) & moving
        i = np.floor((traj.position[1:, 0] - TERRAIN.x0) / TERRAIN.dx + 0.5).astype(int)
        j = np.floor((traj.position[1:, 1] - TERRAIN.y0) / TERRAIN.dy + 0.5).astype(int)
        rows.append(
            {
                "traj": traj,
                "max": [energy.max(), speed.max(), rotation.max(), np.nanmax(jump)],
                "samples": [energy[sample], speed[sample], rotation[sample]],
                "jump_samples": jump[sample & np.isfinite(jump)],
                "drop": drop,
                "cell": j * TERRAIN.shape[1] + i,
                "energy": energy,
                "jump": jump,
            }
        )
    return rows


def test_statistics_and_rasters_agree_with_a_loop_over_simulate():
    """20 rocks: final states, statuses and the cells passed identical to simulate; per-rock and
    per-cell maxima within 1e-13 (the kinetic energy is summed in another order there), path
    statistics within 1e-12, the mean raster within 2^-25 J (its fixed-point resolution, plus
    1e-12 relative) and the p95 raster within the stated RELATIVE_ERROR of the bins."""
    ens = ensemble(n=20, scheme="explicit")
    result = ens.run(threads=2, chunk_size=6)
    ref = reference(ens, ens.rest_speed)
    rocks = result.rocks
    for k, r in enumerate(ref):
        traj = r["traj"]
        assert rocks["status"][k] == traj.status
        assert rocks["steps"][k] == traj.steps
        # the time of the last step, printed as the decimal it is (no 22.586000000000002)
        assert rocks["t_s"][k] == pytest.approx(traj.steps * traj.dt, abs=1e-12)
        assert len(repr(float(rocks["t_s"][k])).split(".")[-1]) <= 9
        assert np.array_equal([rocks["x"][k], rocks["y"][k], rocks["z"][k]], traj.position[-1])
        maxima = [rocks[name][k] for name in MAXIMA]
        np.testing.assert_allclose(maxima, np.multiply(r["max"], [1e-3, 1, 1, 1]), rtol=1e-13)
        assert rocks["release_drop_m"][k] == pytest.approx(r["drop"], rel=1e-13)
        # released 1.2 m above the slope with 1 m/s along it: the drop is the release height
        assert rocks["release_drop_m"][k] == pytest.approx(RELEASE.height, rel=1e-12)
    for q, name in enumerate(("kinetic_energy_kJ", "velocity_ms", "rotational_velocity_rps")):
        values = np.concatenate([r["samples"][q] for r in ref]) * (1e-3 if q == 0 else 1.0)
        path = result.summary[name]["path"]
        assert path["samples"] == values.size
        assert path["mean"] == pytest.approx(values.mean(), rel=1e-12)
        assert path["std"] == pytest.approx(values.std(), rel=1e-12)
    jumps = np.concatenate([r["jump_samples"] for r in ref])
    assert result.summary["jump_height_m"]["path"]["mean"] == pytest.approx(jumps.mean(), rel=1e-12)
    # rasters: each rock's maximum per cell, then over rocks
    size = TERRAIN.heights.size
    passing = np.zeros(size)
    energy_max = np.full(size, -np.inf)
    per_cell: dict[int, list[float]] = {}
    jump_max = np.full(size, -np.inf)
    for r in ref:
        cells = r["cell"]
        for cell in np.unique(cells):
            here = cells == cell
            passing[cell] += 1
            e = r["energy"][here].max() * 1e-3
            energy_max[cell] = max(energy_max[cell], e)
            per_cell.setdefault(int(cell), []).append(e)
            if np.isfinite(r["jump"][here]).any():
                jump_max[cell] = max(jump_max[cell], np.nanmax(r["jump"][here]))
    rasters = {k: v.ravel() for k, v in result.rasters.items()}
    assert np.array_equal(rasters["passing_count"], passing)
    assert np.array_equal(rasters["reach_probability"], passing / ens.n_rocks)
    reached = passing > 0
    np.testing.assert_allclose(rasters["kinetic_energy_max"][reached], energy_max[reached], 1e-13)
    assert np.isnan(rasters["kinetic_energy_max"][~reached]).all()
    # the largest jump of the rocks that flew over a cell; 0 where the rocks only rolled
    flown = np.isfinite(jump_max)
    assert np.array_equal(np.isfinite(rasters["jump_height_max"]), reached)
    assert (flown & reached).any() and (reached & ~flown).any()
    np.testing.assert_allclose(rasters["jump_height_max"][flown], jump_max[flown], rtol=1e-13)
    assert np.all(rasters["jump_height_max"][reached & ~flown] == 0.0)
    cells = np.array(sorted(per_cell))
    mean = np.array([np.mean(per_cell[c]) for c in cells])
    p95 = np.array([np.percentile(per_cell[c], 95) for c in cells])
    np.testing.assert_allclose(
        rasters["kinetic_energy_mean"][cells], mean, rtol=1e-12, atol=2.0**-25 * 1e-3
    )
    np.testing.assert_allclose(
        rasters["kinetic_energy_p95"][cells], p95, rtol=RELATIVE_ERROR * (1 + 1e-12)
    )
    stopped = [r["traj"].position[-1] for r in ref if r["traj"].status == "stopped"]
    assert rasters["deposit_count"].sum() == len(stopped)


def test_resume_after_an_interrupted_run_gives_the_uninterrupted_result(tmp_path):
    """Two of four chunks, then --resume: the chunk files and the reduced results equal those
    of one uninterrupted run; a finished run is not recomputed; other inputs are refused."""
    ens = ensemble(n=10, t_max=6.0)
    whole = run_chunks(ens, tmp_path / "whole", chunk_size=3, progress=False)
    part = run_chunks(ens, tmp_path / "cut", chunk_size=3, progress=False, max_chunks=2)
    assert part.computed == 2 and len(part.chunks) == 2
    with pytest.raises(ValueError, match="incomplete"):
        reduce_chunks(ens, part.chunks, 1.0)
    with pytest.raises(ValueError, match="--resume"):
        run_chunks(ens, tmp_path / "cut", chunk_size=3, progress=False)
    with pytest.raises(ValueError, match="chunk size"):
        run_chunks(ens, tmp_path / "cut", chunk_size=4, resume=True, progress=False)
    other = ensemble(n=10, t_max=6.0, seed=8)
    with pytest.raises(ValueError, match="different run"):
        run_chunks(other, tmp_path / "cut", resume=True, progress=False)
    resumed = run_chunks(ens, tmp_path / "cut", resume=True, progress=False)
    assert resumed.computed == 2
    for i in range(4):
        a = read_chunk(tmp_path / "whole" / "chunks" / f"chunk_{i:06d}.npz")
        b = read_chunk(tmp_path / "cut" / "chunks" / f"chunk_{i:06d}.npz")
        for name in a:
            assert np.array_equal(a[name], b[name], equal_nan=True), name
    same_result(
        reduce_chunks(ens, whole.chunks, whole.wall_time),
        reduce_chunks(ens, resumed.chunks, resumed.wall_time),
    )
    again = run_chunks(ens, tmp_path / "cut", resume=True, progress=False)
    assert again.computed == 0 and len(again.chunks) == 4
    assert not list((tmp_path / "cut" / "chunks").glob("*.partial"))


def test_release_streams_do_not_depend_on_the_number_of_rocks():
    """Rock k's stream is the k-th child of SeedSequence(seed).spawn(n); its start is the same
    when drawn among 5 or 50 rocks or alone; places on a line and in a polygon lie there."""
    children = np.random.SeedSequence(11).spawn(6)
    for k in (0, 5):
        expected = np.random.default_rng(children[k]).random(3)
        assert np.array_equal(rock_rng(11, k).random(3), expected)
    few = RELEASE.draw(TERRAIN, 5, seed=11)
    many = RELEASE.draw(TERRAIN, 50, seed=11)
    alone = RELEASE.draw(TERRAIN, 1, seed=11, first=4)
    assert np.array_equal(few.orientation, many.orientation[:5])
    assert np.array_equal(alone.orientation[0], many.orientation[4])
    norms = np.linalg.norm(many.orientation, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-15)
    # 1.2 m above the terrain, 1 m/s down the 40 deg slope
    assert np.allclose(many.position[:, 2] - TERRAIN.height(3.0, 0.0), 1.2)
    a = math.radians(40.0)
    assert np.allclose(many.velocity, [math.cos(a), 0.0, -math.sin(a)], atol=1e-15)
    line = Release(line=((2.0, -5.0), (4.0, 5.0))).draw(TERRAIN, 30, seed=1)
    t = (line.position[:, 1] + 5.0) / 10.0
    assert np.allclose(line.position[:, 0], 2.0 + 2.0 * t) and 0 < t.min() < t.max() < 1
    square = ((1.0, -2.0), (5.0, -2.0), (5.0, 2.0), (1.0, 2.0))
    triangle = Release(polygon=square[:3]).draw(TERRAIN, 40, seed=2).position
    assert (triangle[:, 0] - 1.0 >= triangle[:, 1] + 2.0).all()  # below the diagonal


def test_uniform_orientations():
    """Uniform on SO(3): E[w^2] = 1/4 and E[(x.e)^2] = 1/3 for the rotated x axis (4000 draws,
    tolerance 4 standard errors)."""
    q = np.array([uniform_quaternion(rock_rng(3, k)) for k in range(4000)])
    w2 = q[:, 0] ** 2
    assert abs(w2.mean() - 0.25) < 4 * w2.std() / math.sqrt(q.shape[0])
    y, z = q[:, 2], q[:, 3]
    first_row = 1.0 - 2.0 * (y * y + z * z)  # (A e_x) . e_x
    assert abs((first_row**2).mean() - 1.0 / 3.0) < 4 * (first_row**2).std() / 63.0


def test_heterogeneous_rocks_match_simulate_of_the_same_rock():
    """A table of two shapes with a scale and a mass per rock: every rock equals simulate of
    ensemble.rock(k), and a scaled EOTA221 at constant density has the inertia of the EOTA221
    of the scaled size (to 1e-12)."""
    shapes = (Rock.eota221(mass=780.0), Rock.box(0.8, 0.6, 0.4, density=2740.0))
    n = 6
    shape_id = np.array([0, 1, 0, 1, 1, 0])
    scale = np.array([1.0, 1.2, 0.8, 1.0, 0.9, 1.1])
    ens = Ensemble(
        TERRAIN,
        shapes,
        SOIL,
        Release(point=(3.0, 0.0), height=1.5).draw(TERRAIN, n, seed=4),
        shape_id=shape_id,
        scale=scale,
        t_max=3.0,
    )
    chunk = ens.run_chunk(0, n)
    for k in range(n):
        traj = ens.trajectory(k)
        assert chunk["steps"][k] == traj.steps
        assert np.array_equal(chunk["final_state"][k, :3], traj.position[-1])
    scaled = ens.rock(2)
    direct = Rock.eota221(size=0.8 * np.ptp(Rock.eota221(mass=780.0).vertices[:, 0]))
    np.testing.assert_allclose(scaled.inertia, direct.inertia, rtol=1e-12)
    assert scaled.mass == pytest.approx(780.0 * 0.8**3, rel=1e-14)


def test_bad_inputs_fail_before_any_work():
    """Negative mass, a release outside the DEM, a rock starting inside the terrain: ValueError
    naming the field."""
    states = RELEASE.draw(TERRAIN, 3, seed=1)
    with pytest.raises(ValueError, match=r"rock\.mass"):
        Ensemble(TERRAIN, Rock.eota221(mass=780.0), SOIL, states, mass=np.array([1.0, -2, 3]))
    with pytest.raises(ValueError, match=r"release\.point.*outside the DEM"):
        Release(point=(80.0, 0.0)).draw(TERRAIN, 3, seed=1)
    with pytest.raises(ValueError, match=r"release\.height.*below the terrain"):
        low = Release(point=(30.0, 0.0), height=0.05)
        Ensemble(TERRAIN, Rock.eota221(mass=780.0), SOIL, low.draw(TERRAIN, 3, seed=1))
    with pytest.raises(ValueError, match="exactly one"):
        Release(point=(1.0, 0.0), line=((0, 0), (1, 1)))


def test_rocks_that_overflow_their_visit_buffers_give_the_same_chunk(monkeypatch):
    """With room for 5 visits a rock, every rock is run again with room for all of its visits:
    the chunk (per-rock arrays, merged visits, cell reduction) is the one of the full buffers."""
    ens = ensemble(n=6)
    full = ens.run_chunk(0, 6)
    visits = ens.visits(0, 6)
    monkeypatch.setattr(driver, "VISIT_CAPACITY", 5)
    assert np.all(ens._kernel(np.arange(6), 5)[5][:, driver.R_VISITS] > 5)
    small = ens.run_chunk(0, 6)
    assert full.keys() == small.keys()
    for name in full:
        assert np.array_equal(full[name], small[name], equal_nan=True), name
    for a, b in zip(visits, ens.visits(0, 6), strict=True):
        assert np.array_equal(a, b, equal_nan=True)


def test_the_release_drop_is_not_a_jump_in_the_ensemble():
    """Six 1 m cubes released face down with their centres 10 m above flat ground (release.height
    = 10): every rock's release drop is 10 m and its largest jump the analytic apex of its one
    bounce, ``a + (eps v)^2 / 2g`` (``v = sqrt(2 g (10 - a))``, ``a = 0.5 m``) within the travel
    of one step at impact, not the 10 m of the fall; the same in the jump rasters and the path
    statistics. On a plastic soil no rock jumps: NaN in the per-rock table, 0 m in every cell
    of the jump rasters the rocks reached."""
    terrain = Terrain.plane(0.0, size=(30.0, 30.0), spacing=1.0)
    release = Release(line=((10.0, -5.0), (20.0, 5.0)), height=10.0, orientation=(1, 0, 0, 0))
    g, a, dt = 9.81, 0.5, 0.002
    v = math.sqrt(2.0 * g * (10.0 - a))
    apex = a + (0.5 * v) ** 2 / (2.0 * g)
    for eps in (0.5, 0.0):
        ens = Ensemble(
            terrain,
            Rock.box(1.0, 1.0, 1.0, mass=2000.0),
            Soil.coulomb(0.5, restitution=eps),
            release.draw(terrain, 6, 3),
            t_max=4.0,
            seed=3,
        )
        result = ens.run(threads=2, chunk_size=4)
        rocks = result.rocks
        assert result.summary["fractions"]["failed"] == 0.0
        np.testing.assert_allclose(rocks["release_drop_m"], 10.0, rtol=1e-12)
        assert result.summary["release_drop_m"]["max"] == pytest.approx(10.0, rel=1e-12)
        jump = result.summary["jump_height_m"]
        if eps == 0.0:
            assert np.isnan(rocks["jump_height_max_m"]).all()
            reached = result.rasters["passing_count"] > 0
            for name in ("jump_height_max", "jump_height_p95", "jump_height_normal_max"):
                assert np.all(result.rasters[name][reached] == 0.0), name
                assert np.isnan(result.rasters[name][~reached]).all(), name
            assert jump["rock_max"]["max"] is None and jump["path"]["samples"] == 0
            continue
        np.testing.assert_allclose(rocks["jump_height_max_m"], apex, atol=v * dt)
        flown = result.rasters["jump_height_max"][np.isfinite(result.rasters["jump_height_max"])]
        assert flown.size and flown.max() == pytest.approx(apex, abs=v * dt)
        assert a - v * dt < jump["path"]["mean"] < apex + v * dt


def test_a_chunk_of_the_earlier_jump_definition_is_refused():
    """A chunk whose maxima lack the release drop (four columns: its jump heights counted the
    fall from the release) is refused with a message, not mixed into the run."""
    ens = ensemble(n=3, t_max=1.0)
    chunk = ens.run_chunk(0, 3)
    old = {**chunk, "maxima": chunk["maxima"][:, :4]}
    with pytest.raises(ValueError, match=r"earlier version of tumble .* --force"):
        reduce_chunks(ens, [old], 1.0)


def test_fingerprints_change_with_a_barrier_s_capacity():
    """Chunk files are reused only for equal inputs: a net of another capacity (or none) gives
    other fingerprints, for the whole run and for each chunk, and the same net the same ones."""
    from tumble.rockfall.barriers import Barrier

    line = np.array([[6.0, -5.0], [6.0, 5.0]])

    def fingerprints(*barriers):
        ens = ensemble(n=4, barriers=barriers)
        return ens.fingerprint(), ens.chunk_fingerprint(0, 2)

    plain = fingerprints()
    net = fingerprints(Barrier("net", line, height=3.0, capacity=500.0))
    assert fingerprints(Barrier("net", line, height=3.0, capacity=500.0)) == net
    stronger = fingerprints(Barrier("net", line, height=3.0, capacity=2000.0))
    assert len({plain[0], net[0], stronger[0]}) == 3
    assert len({plain[1], net[1], stronger[1]}) == 3


def test_spans_are_the_chunks_of_run_chunk(monkeypatch):
    """The chunks of run_spans (rocks taken one at a time by two threads) are those of
    run_chunk one chunk at a time on one thread, array for array and bit for bit, also when
    every rock outgrows its visit buffer and is run again; the setting of the threads is
    restored."""
    ens = ensemble(n=12)
    spans = ens.chunks(5)
    single = [ens.run_chunk(a, b, threads=1) for a, b in spans]
    for capacity in (driver.VISIT_CAPACITY, 5):
        monkeypatch.setattr(driver, "VISIT_CAPACITY", capacity)
        before = get_threads()
        chunks = list(ens.run_spans(spans, threads=2))
        assert get_threads() == before
        assert len(chunks) == len(single)
        for one, other in zip(single, chunks, strict=True):
            assert one.keys() == other.keys()
            for name in one:
                assert np.array_equal(one[name], other[name], equal_nan=True), name


def test_spans_refuse_a_span_outside_the_rocks():
    with pytest.raises(ValueError, match="not within the 12 rocks"):
        next(ensemble(n=12).run_spans([(0, 5), (10, 13)]))


def test_jump_heights_on_rough_terrain_are_those_of_every_step():
    """The kernel takes the terrain height under a flying rock only where the plane below the
    terrain (``B_LOW``) lets the jump exceed what it would update: on a slope roughened by
    0.3 m of noise, where that plane lies well below the surface, every rock's largest jump,
    its largest jump in every cell and the jump samples of the path statistics equal those
    recomputed from :func:`simulate`'s every step (within 1e-13, the height's other rounding)."""
    rng = np.random.default_rng(2)
    x = np.arange(61.0)
    base = np.maximum(20.0 - x, 0.0) * math.tan(math.radians(40.0))
    heights = base[None, :] + rng.normal(0.0, 0.3, (31, 61))
    terrain = Terrain.from_array(np.ascontiguousarray(heights), x0=0.0, y0=-15.0, dx=1.0)
    rock = Rock.eota221(mass=780.0)
    soil = Soil.preset("lu2019")
    ens = Ensemble(terrain, rock, soil, RELEASE.draw(terrain, 8, 5), t_max=8.0, seed=5)
    result = ens.run(threads=2, chunk_size=3)
    per_cell: dict[int, float] = {}
    samples = []
    flights = 0
    for k in range(ens.n_rocks):
        traj = simulate_rock(ens, k, terrain, rock, soil)
        jump = np.where(~traj.in_contact[1:] & traj.touched[1:], traj.height[1:], np.nan)
        flights += np.isfinite(jump).sum()
        assert result.rocks["jump_height_max_m"][k] == pytest.approx(np.nanmax(jump), rel=1e-13)
        step = np.rint(traj.t[1:] / traj.dt).astype(int)
        moving = traj.kinetic_energy()[1:] > 0.5 * traj.mass * ens.rest_speed**2
        samples.append(jump[(step % ens.sample_every == 0) & moving & np.isfinite(jump)])
        i = np.floor(traj.position[1:, 0] - terrain.x0 + 0.5).astype(int)
        j = np.floor(traj.position[1:, 1] - terrain.y0 + 0.5).astype(int)
        cells = j * terrain.shape[1] + i
        for cell in np.unique(cells):
            here = jump[cells == cell]
            if np.isfinite(here).any():
                per_cell[int(cell)] = max(per_cell.get(int(cell), -np.inf), np.nanmax(here))
    assert flights > 1000  # the rocks fly over the rough ground
    raster = result.rasters["jump_height_max"].ravel()
    reached = np.flatnonzero(result.rasters["passing_count"].ravel() > 0)
    assert np.array_equal(np.flatnonzero(np.isfinite(raster)), reached)
    assert set(per_cell) <= set(reached.tolist())
    np.testing.assert_allclose(
        raster[sorted(per_cell)], [per_cell[c] for c in sorted(per_cell)], rtol=1e-13
    )
    assert np.all(raster[sorted(set(reached.tolist()) - set(per_cell))] == 0.0)
    jumps = np.concatenate(samples)
    path = result.summary["jump_height_m"]["path"]
    assert path["samples"] == jumps.size
    assert path["mean"] == pytest.approx(jumps.mean(), rel=1e-12)
