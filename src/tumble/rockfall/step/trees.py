"""Rock-tree impacts after a step: the kernel of :mod:`tumble.rockfall.forest`.

The formulas, their sources and what is not taken from a source are in the docstring of
:mod:`tumble.rockfall.forest`; this module holds the compiled pieces the per-rock loops call
after every step that ended ``OK`` (:func:`forest_step`), on plain arrays:

``forest`` (:func:`tumble.rockfall.forest.pack_forest`) is the tuple

* ``params`` (3,): ``P_MODE`` (``MODE_NONE``, ``MODE_STAND``, ``MODE_TREES``), ``P_STEM_HEIGHT``
  (m: stems reach this high above the terrain; ``inf`` for no limit), ``P_MAX_DBH`` (m, the
  largest stem diameter, for the search radius of single trees);
* ``density`` (ny nx,): stems per square metre of every DEM cell (nearest sample), 0 no forest;
* ``dbh`` (ny nx,): mean stem diameter at breast height of the cell, m;
* ``factor`` (ny nx,): energy factor of the cell's stand (1 = the curve of Dorren & Berger);
* ``tree_xy`` (n_trees, 2): stem positions, sorted by DEM cell; ``tree_dbh`` (n_trees,) m;
  ``tree_factor`` (n_trees,); ``tree_start`` (ny nx + 1,): the stems of cell c are
  ``tree_start[c] .. tree_start[c + 1] - 1``.

Each rock carries ``fstate`` (``N_FOREST``,): ``F_DEPTH`` the stem-encounter depth left before its
next impact in a stand, ``F_IMPACTS`` its impacts, ``F_ENERGY`` the energy its impacts took (J),
``F_DRAWS`` the random numbers drawn, ``F_X``, ``F_Y`` its centre after the previous step; its
``key`` (uint64) seeds its own stream of random numbers (:func:`uniform`, counter based: the k-th
number of a rock is the same whatever the threads or chunks); ``broken`` (n_trees,) marks the
single trees it broke (they are gone for this rock only); ``impact_cell`` its impacts' DEM cells
(the first ``len(impact_cell)`` of them).
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf
from tumble.rockfall.step.model import S_R, S_V
from tumble.rockfall.step.surface import bilinear_uv, sample_cell

#: entries of the forest's ``params``
P_MODE, P_STEM_HEIGHT, P_MAX_DBH = range(3)
N_PARAMS = 3
#: forest modes: none, stands from inventory rasters, single trees
MODE_NONE, MODE_STAND, MODE_TREES = 0, 1, 2
#: the per-rock forest state; in a stand also the stem of its last impact that held it, its
#: axis (F_STEM_X, F_STEM_Y), reach ``(D + d) / 2`` (F_STEM_R, 0 for none) and capacity (J)
F_DEPTH, F_IMPACTS, F_ENERGY, F_DRAWS, F_X, F_Y = range(6)
F_STEM_X, F_STEM_Y, F_STEM_R, F_STEM_CAPACITY = range(6, 10)
N_FOREST = 10

#: Dorren & Berger (2006): energy a stem dissipates, ``FE = FE_COEFF * DBH^FE_EXPONENT`` J, DBH cm
FE_COEFF = 38.7
FE_EXPONENT = 2.31

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


@jit_leaf
def uniform(key: np.uint64, counter: int) -> float:
    """The ``counter``-th number of the stream ``key``, uniform on (0, 1): SplitMix64 (Steele,
    Lea & Flood 2014) of ``key + (counter + 1) * golden``, its top 53 bits."""
    z = key + np.uint64(counter + 1) * _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return (float(z >> _S11) + 0.5) * (1.0 / 9007199254740992.0)


@jit_leaf
def stem_capacity(dbh_m: float, factor: float) -> float:
    """Energy a stem of diameter ``dbh_m`` (m) dissipates before it breaks, J:
    ``factor * FE_COEFF * (100 dbh_m)^FE_EXPONENT`` (Dorren & Berger 2006)."""
    return factor * FE_COEFF * math.pow(100.0 * dbh_m, FE_EXPONENT)


@jit_leaf
def impact(state: np.ndarray, mass: float, nx: float, ny: float, capacity: float) -> float:
    """One impact against a vertical stem whose contact normal (horizontal unit vector from the
    stem's axis to the rock's centre) is ``(nx, ny)``; returns the energy the stem took (J),
    negative when the stem broke (minus the energy it took).

    The stem takes the kinetic energy of the velocity component along the normal, ``E_n = m
    v_n^2 / 2``, up to its ``capacity``: it stands (``E_n <= capacity``) and the rock keeps the
    tangential and vertical components of its velocity, or it breaks, takes ``capacity``, and the
    rock keeps ``E_n - capacity`` along the normal. A rock that does not approach the stem
    (``v_n >= 0``) is not touched (0 returned)."""
    vn = state[S_V] * nx + state[S_V + 1] * ny
    if vn >= 0.0:
        return 0.0
    normal_energy = 0.5 * mass * vn * vn
    if normal_energy <= capacity:
        state[S_V] -= vn * nx
        state[S_V + 1] -= vn * ny
        return normal_energy
    kept = vn * math.sqrt(1.0 - capacity / normal_energy)
    state[S_V] += (kept - vn) * nx
    state[S_V + 1] += (kept - vn) * ny
    return -capacity


@jit_leaf
def _below_crowns(heights: np.ndarray, stem_height: float, u: float, v: float, z: float) -> bool:
    """Whether the centre at height ``z`` is less than ``stem_height`` above the terrain."""
    if stem_height == math.inf:
        return True
    ground, inside = bilinear_uv(heights, u, v)
    return inside and z - ground < stem_height


@jit_leaf
def _record(fstate: np.ndarray, impact_cell: np.ndarray, cell: int, taken: float) -> None:
    n = int(fstate[F_IMPACTS])
    if n < impact_cell.shape[0]:
        impact_cell[n] = cell
    fstate[F_IMPACTS] = n + 1
    fstate[F_ENERGY] += abs(taken)


@jit_leaf
def _draw(key: np.uint64, fstate: np.ndarray) -> float:
    u = uniform(key, int(fstate[F_DRAWS]))
    fstate[F_DRAWS] += 1.0
    return u


@jit_leaf
def _held(
    state: np.ndarray,
    mass: float,
    x: float,
    y: float,
    fstate: np.ndarray,
    heights: np.ndarray,
    stem_height: float,
    u: float,
    v: float,
) -> bool:
    """In a stand, the stem of the rock's last impact that held it, as a single tree is: while
    the rock's centre lies within its reach and below the crowns and approaches the stem, the
    stem takes the normal component again (the rock leans on it: no new impact); True when it
    did. The stem is forgotten once the rock has left its reach, or broke it."""
    dx = x - fstate[F_STEM_X]
    dy = y - fstate[F_STEM_Y]
    reach = fstate[F_STEM_R]
    d2 = dx * dx + dy * dy
    if d2 >= reach * reach or d2 == 0.0:
        fstate[F_STEM_R] = 0.0
        return False
    if not _below_crowns(heights, stem_height, u, v, state[S_R + 2]):
        return False
    dist = math.sqrt(d2)
    taken = impact(state, mass, dx / dist, dy / dist, fstate[F_STEM_CAPACITY])
    if taken == 0.0:
        return False
    fstate[F_ENERGY] += abs(taken)
    if taken < 0.0:
        fstate[F_STEM_R] = 0.0
    return True


@jit_leaf
def start_forest(state: np.ndarray, key: np.uint64, fstate: np.ndarray) -> None:
    """The forest state of a rock at its release: no impact yet, the stem-encounter depth to
    its first impact drawn (exponential of mean 1), its centre noted."""
    for i in range(N_FOREST):
        fstate[i] = 0.0
    fstate[F_DEPTH] = -math.log(_draw(key, fstate))
    fstate[F_X] = state[S_R]
    fstate[F_Y] = state[S_R + 1]


@jit_leaf
def forest_step(
    params: np.ndarray,
    density: np.ndarray,
    dbh: np.ndarray,
    factor: np.ndarray,
    tree_xy: np.ndarray,
    tree_dbh: np.ndarray,
    tree_factor: np.ndarray,
    tree_start: np.ndarray,
    heights: np.ndarray,
    grid: np.ndarray,
    state: np.ndarray,
    mass: float,
    diameter: float,
    key: np.uint64,
    fstate: np.ndarray,
    broken: np.ndarray,
    impact_cell: np.ndarray,
) -> None:
    """Rock-tree impacts of the step that moved the rock's centre from ``(fstate[F_X],
    fstate[F_Y])`` to ``state``'s (module docstring; the model in :mod:`tumble.rockfall.forest`).
    At most one impact per step; ``state``'s velocity is changed in place."""
    x = state[S_R]
    y = state[S_R + 1]
    px = fstate[F_X]
    py = fstate[F_Y]
    fstate[F_X] = x
    fstate[F_Y] = y
    ny_ = heights.shape[0]
    nx_ = heights.shape[1]
    u = (x - grid[0]) / grid[2]
    v = (y - grid[1]) / grid[3]
    mode = int(params[P_MODE])
    stem_height = params[P_STEM_HEIGHT]
    if mode == MODE_STAND:
        if fstate[F_STEM_R] > 0.0 and _held(state, mass, x, y, fstate, heights, stem_height, u, v):
            return
        cell = sample_cell(nx_, ny_, u, v)
        if cell < 0 or not density[cell] > 0.0:
            return
        if not _below_crowns(heights, stem_height, u, v, state[S_R + 2]):
            return
        stem = dbh[cell]
        step = math.hypot(x - px, y - py)
        depth = fstate[F_DEPTH] - density[cell] * (stem + diameter) * step
        if depth > 0.0:
            fstate[F_DEPTH] = depth
            return
        fstate[F_DEPTH] = -math.log(_draw(key, fstate))
        b = _draw(key, fstate)
        side = 1.0 if _draw(key, fstate) < 0.5 else -1.0
        speed = math.hypot(state[S_V], state[S_V + 1])
        if speed == 0.0:
            return
        ux = state[S_V] / speed
        uy = state[S_V + 1] / speed
        along = math.sqrt(1.0 - b * b)
        nx = -along * ux - side * b * uy
        ny = -along * uy + side * b * ux
        capacity = stem_capacity(stem, factor[cell])
        taken = impact(state, mass, nx, ny, capacity)
        _record(fstate, impact_cell, cell, taken)
        if taken > 0.0:
            # the stem stood: it stays where the rock met it, at (D + d) / 2 behind its centre
            reach = 0.5 * (stem + diameter)
            fstate[F_STEM_X] = x - nx * reach
            fstate[F_STEM_Y] = y - ny * reach
            fstate[F_STEM_R] = reach
            fstate[F_STEM_CAPACITY] = capacity
        return
    if mode != MODE_TREES:
        return
    reach = 0.5 * (params[P_MAX_DBH] + diameter)
    ri = math.ceil(reach / abs(grid[2]))
    rj = math.ceil(reach / abs(grid[3]))
    i0 = math.floor(u + 0.5)
    j0 = math.floor(v + 0.5)
    checked = False
    for j in range(max(j0 - rj, 0), min(j0 + rj + 1, ny_)):
        for i in range(max(i0 - ri, 0), min(i0 + ri + 1, nx_)):
            c = j * nx_ + i
            for t in range(tree_start[c], tree_start[c + 1]):
                if broken[t]:
                    continue
                dx = x - tree_xy[t, 0]
                dy = y - tree_xy[t, 1]
                radius = 0.5 * (tree_dbh[t] + diameter)
                d2 = dx * dx + dy * dy
                if d2 >= radius * radius:
                    continue
                if not checked:
                    if not _below_crowns(heights, stem_height, u, v, state[S_R + 2]):
                        return
                    checked = True
                dist = math.sqrt(d2)
                if dist == 0.0:
                    continue
                taken = impact(
                    state,
                    mass,
                    dx / dist,
                    dy / dist,
                    stem_capacity(tree_dbh[t], tree_factor[t]),
                )
                if taken == 0.0:
                    continue
                qx = px - tree_xy[t, 0]
                qy = py - tree_xy[t, 1]
                if qx * qx + qy * qy >= radius * radius:
                    _record(fstate, impact_cell, sample_cell(nx_, ny_, u, v), taken)
                else:
                    # the rock leans on a stem it met before: held, not a new impact
                    fstate[F_ENERGY] += abs(taken)
                if taken < 0.0:
                    broken[t] = True
                return


@jit_leaf
def trees_step(
    forest: tuple[np.ndarray, ...],
    trees: tuple[float, np.uint64, np.ndarray, np.ndarray, np.ndarray],
    heights: np.ndarray,
    grid: np.ndarray,
    state: np.ndarray,
    mass: float,
) -> None:
    """:func:`forest_step` with the stems ``forest`` and the rock's ``trees`` (diameter, key,
    fstate, broken, impact_cell) as the loops of one rock and of an ensemble hold them."""
    params, density, dbh, factor, tree_xy, tree_dbh, tree_factor, tree_start = forest
    diameter, key, fstate, broken, impact_cell = trees
    forest_step(
        params, density, dbh, factor, tree_xy, tree_dbh, tree_factor, tree_start, heights,
        grid, state, mass, diameter, key, fstate, broken, impact_cell,
    )  # fmt: skip
