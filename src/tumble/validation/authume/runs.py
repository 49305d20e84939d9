"""Simulated releases on an Authume profile: the stop point of every rock, by the ensemble driver.

:func:`run_profile` simulates ``n`` releases of
:func:`~tumble.validation.authume.releases.authume_releases` (256 = each of the four drop points
with each of the 64 given orientations, masses and shapes drawn from the profile's measured
blocks) on the quarry's DEM with the per-zone soil of :mod:`tumble.validation.authume.soils`. The
rocks run through :class:`tumble.rockfall.ensemble.Ensemble`, as every other ensemble: the four
block shapes, each rock's shape id, scale and mass, the releases at rest; chunks of
:data:`CHUNK_ROCKS` rocks on ``workers`` threads. The vegetation drag depends on the block's
volume (:meth:`~tumble.validation.authume.soils.SoilParameters.table`), so the rocks run in groups
of equal mass, one soil per group. The results are in rock order and do not depend on
``workers``, on the chunks or on the groups.

The Gauss-Seidel tolerance is that of a single :func:`tumble.rockfall.simulate`
(:data:`tumble.rockfall.simulate.PGS_TOL`, 1e-10) instead of the ensemble's default: the stored
calibration (:data:`~tumble.validation.authume.soils.CALIBRATED`) and the numbers of
``docs/validation_authume.md`` were computed with it, and each rock is then bit-identical to
``simulate`` of the same rock.

The stop point of a rock is its final centre of mass, for every regular end (``stopped``;
``left_domain`` and ``timed_out`` give a lower bound of the run-out and are counted); rocks that
end in a numerical failure are left out of the metrics (:mod:`tumble.validation.authume.metrics`)
and counted.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble import _check
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.outcomes import run_outcomes
from tumble.rockfall.release import ReleaseStates
from tumble.rockfall.simulate import DT, PGS_TOL
from tumble.rockfall.site.soil_uncertainty import set_index, soil_uniforms
from tumble.rockfall.soil import FIELDS
from tumble.rockfall.status import REGULAR, status_name
from tumble.validation.authume import data
from tumble.validation.authume.releases import N_CYCLE, AuthumeReleases, authume_releases
from tumble.validation.authume.soils import (
    CALIBRATED,
    SoilParameters,
    zone_soil,
)
from tumble.validation.authume.terrain import authume_terrain

#: Rocks per profile: every drop point with every given orientation.
ROCKS_PER_PROFILE = N_CYCLE
#: Simulated time per rock, s (the rocks of the calibrated runs stop within 50 s).
T_MAX = 60.0
#: Rocks per chunk of the ensemble driver: the progress is reported once per chunk.
CHUNK_ROCKS = 32


@dataclass(frozen=True, eq=False)
class ProfileRun:
    """Stop points of ``n`` simulated releases on a profile (tumble's frame, batch first).

    ``stop`` (n, 3): final centre of mass (m); ``coordinates`` (n, 2): its distance along the
    profile from the drop line and lateral offset (m); ``status`` (n,): how each rock ended;
    ``t_end`` (n,): simulated time (s); ``steps`` (n,); ``seconds``: wall-clock time of the run;
    ``spacing``: of the DEM (m).
    """

    profile: str
    scheme: str
    parameters: SoilParameters
    releases: AuthumeReleases
    stop: np.ndarray
    coordinates: np.ndarray
    status: tuple[str, ...]
    t_end: np.ndarray
    steps: np.ndarray
    seconds: float
    t_max: float
    spacing: float
    #: the equivalent parameter sets each rock drew from (empty: every rock ran with
    #: ``parameters``), and each rock's set (n,)
    sets: tuple[SoilParameters, ...] = ()
    soil_set: np.ndarray | None = None
    #: the fields drawn per rock from a category's spread (``spread`` of :func:`run_profile`):
    #: field -> each rock's value (n,); empty without
    drawn: Mapping[str, np.ndarray] = dataclasses.field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.status)

    @property
    def regular(self) -> np.ndarray:
        """Rocks whose run ended regularly (not in a numerical failure)."""
        names = {status_name(code) for code in REGULAR}
        return np.array([s in names for s in self.status], dtype=bool)

    def status_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(self.status).items()))


#: Fields of :class:`SoilParameters` that set a :class:`~tumble.rockfall.soil.Soil` field of
#: another name in one zone (:meth:`SoilParameters.table`): a spread of them draws with that
#: field's uniform, as a soil map's classes all draw a field's spread with the same quantile.
SPREAD_FIELDS = {"rocky_rolling_resistance": "rolling_resistance"}


def run_profile(
    profile: str | int,
    parameters: SoilParameters = CALIBRATED,
    scheme: str = "implicit",
    n: int = ROCKS_PER_PROFILE,
    seed: int = 0,
    t_max: float = T_MAX,
    workers: int = 1,
    spacing: float = 0.5,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int], None] | None = None,
    sets: Sequence[SoilParameters] = (),
    repeat: int = 1,
    spread: Mapping[str, tuple[float, float]] | None = None,
) -> ProfileRun:
    """Simulate ``n`` releases on a profile with the per-zone soil of ``parameters``.

    Rock ``k`` is :meth:`~tumble.validation.authume.releases.AuthumeReleases.rock` ``(k)``
    released at rest from its drop point (moved to ``parameters.drop_offset`` beyond the crest
    unless that is None) and orientation; ``scheme`` is the rotation scheme of the engine
    (``"implicit"`` or ``"explicit"``). The ensemble driver runs the rocks on ``workers``
    threads; the result is the same for any number. ``progress(k)`` is called once per finished
    rock ``k`` as each chunk of rocks finishes.

    ``sets``: parameter sets a calibration cannot tell apart (all with the drop offset of
    ``parameters``); each rock then runs with one of them, drawn from its own soil stream as in
    every run with ``soil.uncertainty = "sets"``
    (:func:`tumble.rockfall.site.soil_uncertainty.soil_uniforms`, set ``floor(u_0 n_sets)``). With
    ``repeat`` the ``n`` releases run ``repeat`` times (rock ``k`` is release ``k mod n``), each
    repetition with its own draws: ``n repeat`` rocks.

    ``spread``: field of :class:`SoilParameters` that sets a field of
    :class:`~tumble.rockfall.soil.Soil` (``rolling_resistance``, ``scar_strength``, and
    ``rocky_rolling_resistance``, the Red zone's ``rolling_resistance``: :data:`SPREAD_FIELDS`)
    -> range ``(low, high)``; each rock draws it uniformly, ``low + (high - low) u_{1+j}`` with
    ``j`` the index in :data:`~tumble.rockfall.soil.FIELDS` of the Soil field it sets and ``u``
    the rock's soil uniforms, as every run with
    ``soil.uncertainty = "category"`` draws a category's spread (the same quantile in every zone
    that has the field); ``repeat`` works as with ``sets``.
    """
    if not isinstance(parameters, SoilParameters):
        raise ValueError(f"parameters must be SoilParameters, got {type(parameters).__name__}")
    if scheme not in ("implicit", "explicit"):
        raise ValueError(f"scheme must be 'implicit' or 'explicit', got {scheme!r}")
    n = _check.positive_int(n, "n")
    workers = _check.positive_int(workers, "workers")
    t_max = float(t_max)
    if not (math.isfinite(t_max) and t_max > 0.0):
        raise ValueError(f"t_max must be positive, got {t_max!r}")
    repeat = _check.positive_int(repeat, "repeat")
    sets = tuple(sets)
    if not all(isinstance(p, SoilParameters) for p in sets):
        raise ValueError("sets must be SoilParameters")
    if any(p.drop_offset != parameters.drop_offset for p in sets):
        raise ValueError("every equivalent set must have the drop offset of parameters")
    spread = {k: (float(v[0]), float(v[1])) for k, v in (spread or {}).items()}
    for name, (low, high) in spread.items():
        if SPREAD_FIELDS.get(name, name) not in FIELDS or not hasattr(parameters, name):
            raise ValueError(
                f"spread of {name!r}: only fields of SoilParameters that set a field of Soil"
            )
        if not (math.isfinite(low) and math.isfinite(high) and 0.0 <= low <= high):
            raise ValueError(f"spread of {name} must be 0 <= low <= high, got {(low, high)!r}")
    if sets and spread:
        raise ValueError("a run draws either from sets or from a spread, not both")
    if repeat > 1 and not (sets or spread):
        raise ValueError("repeat is for runs that draw their parameters (sets or spread)")
    start = time.perf_counter()
    terrain = authume_terrain(data_dir, spacing)
    releases = _repeated(
        authume_releases(profile, n, seed, data_dir, drop_offset=parameters.drop_offset), repeat
    )
    n = n * repeat
    uniforms = soil_uniforms(seed, n) if (sets or spread) else np.zeros((n, 1 + len(FIELDS)))
    soil_set = set_index(uniforms[:, 0], len(sets)) if sets else None
    drawn = {
        name: low + (high - low) * uniforms[:, 1 + FIELDS.index(SPREAD_FIELDS.get(name, name))]
        for name, (low, high) in spread.items()
    }
    at_rest = np.zeros((n, 3))
    codes = np.empty(n, dtype=np.int64)
    steps = np.empty(n, dtype=np.int64)
    stop = np.empty((n, 3))
    # one soil per block volume: the vegetation drag grows with the projected area
    masses, group = np.unique(releases.mass, return_inverse=True)
    for g, mass in enumerate(masses):
        rocks = np.flatnonzero(group == g)
        volume = float(mass) / releases.blocks[releases.shape_names[0]].density
        soil = zone_soil(terrain.soil["zone"], parameters.table(volume))
        table: dict[str, Any] = {}
        if soil_set is not None:
            # the general path of soil.uncertainty: a table of soils, one row per rock
            soils = [zone_soil(terrain.soil["zone"], p.table(volume)) for p in sets]
            table = {"soils": soils, "soil_row": soil_set[rocks]}
        elif drawn:
            # soil.uncertainty = "category": one soil per rock (its own draw)
            soils = [
                zone_soil(
                    terrain.soil["zone"],
                    dataclasses.replace(
                        parameters, **{k: float(v[k_rock]) for k, v in drawn.items()}
                    ).table(volume),
                )
                for k_rock in rocks
            ]
            table = {"soils": soils, "soil_row": np.arange(rocks.size)}
        states = ReleaseStates(
            releases.position[rocks], releases.quaternion[rocks], at_rest[rocks], at_rest[rocks]
        )
        ensemble = Ensemble(
            terrain,
            releases.shapes(),
            soil,
            states,
            shape_id=releases.shape_id[rocks],
            scale=releases.scale[rocks],
            mass=releases.mass[rocks],
            seed=seed,
            scheme=scheme,
            t_max=t_max,
            pgs_tol=PGS_TOL,
            **table,
        )
        advance = None if progress is None else _rock_progress(progress, rocks)
        out = run_outcomes(ensemble, CHUNK_ROCKS, workers, advance)
        codes[rocks] = out["status"]
        steps[rocks] = out["steps"]
        stop[rocks] = out["stop"]
    return ProfileRun(
        profile=releases.profile,
        scheme=scheme,
        parameters=parameters,
        releases=releases,
        stop=stop,
        coordinates=data.profile_coordinates(releases.profile, stop, data_dir),
        status=tuple(status_name(int(code)) for code in codes),
        # the driver's step is simulate's default, DT
        t_end=steps * DT,
        steps=steps,
        seconds=time.perf_counter() - start,
        t_max=t_max,
        spacing=float(spacing),
        sets=sets,
        soil_set=soil_set,
        drawn=drawn,
    )


def _rock_progress(
    progress: Callable[[int], None], rocks: np.ndarray
) -> Callable[[int, int], None]:
    """``progress(k)`` for each release ``k`` of a chunk ``lo .. hi - 1`` of the ensemble that
    runs the releases ``rocks``."""

    def advance(lo: int, hi: int) -> None:
        for k in rocks[lo:hi]:
            progress(int(k))

    return advance


def _repeated(releases: AuthumeReleases, repeat: int) -> AuthumeReleases:
    """The releases one after another ``repeat`` times (rock ``k`` is release ``k mod n``)."""
    if repeat == 1:
        return releases
    arrays: dict[str, Any] = {}
    for f in dataclasses.fields(releases):
        value = getattr(releases, f.name)
        if isinstance(value, np.ndarray):
            arrays[f.name] = np.tile(value, (repeat,) + (1,) * (value.ndim - 1))
    return dataclasses.replace(releases, **arrays)
