"""run_outcomes: how each rock ended, the same as one chunk of the whole ensemble whatever the
chunk size and threads, with the progress of every chunk."""

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.outcomes import run_outcomes
from tumble.rockfall.release import Release


def test_outcomes_are_the_whole_chunk_s_for_any_chunks_and_threads():
    rock = Rock.eota111(mass=270.0)
    terrain = Terrain.plane(30.0, size=(120.0, 40.0), spacing=2.0)
    release = Release(point=(10.0, 0.0), height=0.5, speed_downslope=1.0)
    states = release.draw(terrain, 7, 3, hulls=Hulls.of(rock))
    ensemble = Ensemble(terrain, rock, Soil.preset("medium"), states, seed=3, t_max=6.0)
    whole = ensemble.run_chunk(0, 7, 1)
    for chunk_rocks, threads in ((7, 1), (3, 2), (1, 1)):
        seen: list[tuple[int, int]] = []
        out = run_outcomes(
            ensemble, chunk_rocks, threads, lambda lo, hi, seen=seen: seen.append((lo, hi))
        )
        np.testing.assert_array_equal(out["status"], whole["status"])
        np.testing.assert_array_equal(out["steps"], whole["steps"])
        np.testing.assert_array_equal(out["stop"], whole["final_state"][:, :3])
        edges = list(range(0, 7, chunk_rocks))
        assert seen == [(lo, min(lo + chunk_rocks, 7)) for lo in edges]
    with pytest.raises(ValueError, match="chunk_rocks"):
        run_outcomes(ensemble, 0)
