"""Stratified sampling of a release: every rock of a run in its own stratum of equal probability.

With ``[release] sampling = "stratified"`` the release places and rock classes of a run of ``n``
rocks are drawn by stratified sampling of one uniform coordinate, systematic sampling with a
random offset per rock (Cochran 1977, sections 5.1-5.3 and 8.1; McKay, Beckman & Conover 1979
for the one-dimensional case of Latin hypercube sampling):

1. Rock ``k`` has the position ``u_k = (k + v_k) / n`` in [0, 1), with ``v_k`` the first uniform
   of its own stratum stream ``default_rng(SeedSequence(seed, spawn_key=(k, STRATUM_STREAM)))``
   (:func:`stratum_rng`): every interval ``[k / n, (k + 1) / n)`` holds exactly one rock, and
   ``u_k`` is uniform in it.
2. ``u`` is mapped to the release by nested inverse distribution functions (:func:`split`): the
   release area (weights: the areas' shares of the rocks), within it the rock class (the
   classes' shares), within it the release cell (weights: the area of each DEM cell's piece of
   the area, or a source raster's cell values), each level passing on the rest of ``u``
   rescaled to [0, 1). The map carries the uniform distribution on [0, 1) to the joint
   distribution of area, class and cell exactly, so each rock's start has, averaged over its
   stratum, exactly the distribution of plain sampling, and the mean over the rocks of any
   quantity is unbiased: ``E[1/n sum_k f(X_k)] = sum_k int_{stratum k} f = int f``.
3. The place in the cell (uniform over the cell's piece of the area) and the orientation are
   drawn from the rock's release stream, the volume of a class with a volume distribution from
   its class stream (:mod:`tumble.rockfall.site.rock_classes`), as in plain sampling.

**Exact shares.** The number of rocks of a stratum of probability ``w`` (an area, a class in an
area) differs from ``n w`` by less than 2 (less than 1 for the first area, whose interval starts at
0) and its expectation is ``n w`` exactly: the rounding is random, never always up or down.
Because ``u_k`` grows with ``k``, the rocks of a run are numbered area by area, as with plain
sampling, and within an area class by class.

Everything depends on the seed, the number of rocks and the rock's number only, never on the
chunks or threads of a run. A run of another number of rocks has other strata, so the rounds of
``rocks = "auto"`` share no rocks (each round is run whole; about twice the rocks of the last
round in all).

Citations: W. G. Cochran, Sampling Techniques, 3rd ed., Wiley (1977); M. D. McKay, R. J. Beckman,
W. J. Conover, A comparison of three methods for selecting values of input variables in the
analysis of output from a computer code, Technometrics 21 (1979) 239-245.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: spawn key of the stratum stream below a rock's stream (the class stream is 1)
STRATUM_STREAM = 2
#: how a release draws its rocks: the configuration's ``release.sampling``
SAMPLINGS = ("random", "stratified")
#: the largest position strictly below 1
_BELOW_ONE = float(np.nextafter(1.0, 0.0))


def stratum_rng(seed: int, k: int) -> np.random.Generator:
    """The stratum stream of rock ``k`` (module docstring)."""
    return np.random.default_rng(
        np.random.SeedSequence(int(seed), spawn_key=(int(k), STRATUM_STREAM))
    )


def positions(seed: int, n: int) -> np.ndarray:
    """``u_k = (k + v_k) / n`` of rocks ``0 .. n - 1`` (module docstring), shape (n,)."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"the number of rocks must be a positive integer, got {n!r}")
    offsets = np.fromiter(
        (float(stratum_rng(seed, k).random()) for k in range(int(n))), np.float64, int(n)
    )
    return np.minimum((np.arange(int(n)) + offsets) / int(n), _BELOW_ONE)


def split(u: np.ndarray, weights: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(index, rest)``: the part ``i`` of ``[0, 1)`` divided in proportion to ``weights``
    (non-negative, positive sum) that holds each ``u``, and ``u``'s place inside that part
    rescaled to ``[0, 1)``. A part of zero weight holds no ``u``."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be non-negative numbers with a positive sum, got {w}")
    upper = np.cumsum(w) / w.sum()
    # the parts from the last of positive weight on end at 1 exactly, so that round-off of
    # the sum never leaves a position above the last boundary or in a part of zero weight
    upper[int(np.flatnonzero(w > 0.0)[-1]) :] = 1.0
    lower = np.concatenate([[0.0], upper[:-1]])
    # the first part whose upper boundary lies above u: never one of zero weight
    index = np.searchsorted(upper, u, side="right")
    width = upper[index] - lower[index]
    rest = np.clip((u - lower[index]) / width, 0.0, _BELOW_ONE)
    return index.astype(np.int64), rest


def hilbert_order(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """The order of the grid cells ``(i, j)`` (column, row; non-negative integers) along a
    Hilbert curve over them, so that cells next in the order lie next to each other and a run
    of consecutive cells is a compact patch (D. Hilbert, Math. Ann. 38 (1891) 459-460)."""
    i = np.asarray(i, dtype=np.int64).copy()
    j = np.asarray(j, dtype=np.int64).copy()
    side = 1
    while side < max(int(i.max(initial=0)), int(j.max(initial=0))) + 1:
        side *= 2
    distance = np.zeros(i.shape, dtype=np.int64)
    s = side // 2
    while s > 0:
        ri = (i & s) > 0
        rj = (j & s) > 0
        distance += s * s * ((3 * ri) ^ rj)
        # rotate the quadrant so that the curve inside it runs as in the whole square
        flip = ~rj
        mirror = flip & ri
        i = np.where(mirror, side - 1 - i, i)
        j = np.where(mirror, side - 1 - j, j)
        i, j = np.where(flip, j, i), np.where(flip, i, j)
        s //= 2
    return np.argsort(distance, kind="stable")


@dataclass(frozen=True, eq=False)
class Strata:
    """The strata of ``n`` rocks (module docstring): ``source`` (n,) the release area of each
    rock, ``class_id`` (n,) its rock class (zeros without classes), and ``rest`` (n,) its
    position inside its (area, class) stratum rescaled to [0, 1), which chooses its cell."""

    source: np.ndarray
    class_id: np.ndarray
    rest: np.ndarray

    @classmethod
    def draw(
        cls,
        seed: int,
        n: int,
        source_weights: Sequence[float] = (1.0,),
        class_shares: Sequence[float] = (1.0,),
    ) -> Strata:
        """The strata of rocks ``0 .. n - 1`` of a run of ``n`` rocks with ``seed``."""
        source, rest = split(positions(seed, n), source_weights)
        class_id, rest = split(rest, class_shares)
        return cls(source, class_id, rest)

    def counts(self, sources: int) -> np.ndarray:
        """Rocks of each of the ``sources`` release areas."""
        return np.bincount(self.source, minlength=sources).astype(np.int64)
