"""The default settings of the rockfall solver, each spelled once.

The engine's options record (:class:`tumble.rockfall.step.model.Options`, and the ensembles'
:data:`tumble.rockfall.ensemble.ENSEMBLE_OPTIONS`) and the schema of a run's configuration
(:mod:`tumble.io.config`) both take their defaults from here. They sit in the lowest layer
because ``io`` holds file formats only and may not import the engine.

Defaults are those of Leine et al. 2021 (seed 000) where the paper gives them (dt = 2 ms); the
rest criterion, tolerances and caps are tumble's (not published for RAMMS).
"""

from __future__ import annotations

from typing import Final

#: rotation scheme of the rockfall step (Leine et al. 2021, eq. 84-87; ``"explicit"``: eq. 79-83)
SCHEME: Final = "implicit"
#: time step, s (Leine et al. 2021)
DT = 0.002
#: duration of a rock, s: a rock still moving after it has timed out
T_MAX = 60.0
#: gravitational acceleration, m/s^2, along -z
GRAVITY = 9.81
#: rest: kinetic energy at or below m REST_SPEED^2 / 2 for REST_TIME seconds
REST_SPEED = 0.01
REST_TIME = 1.0
#: projected Gauss-Seidel: relative tolerance on the percussions and sweep cap per step
PGS_TOL = 1e-10
PGS_MAX_ITER = 500
#: Gauss-Seidel tolerance of ensembles (relative change of the percussions between two sweeps).
#: 1e-6 leaves the percussions, and so the velocities, with relative errors of about 1e-6 per
#: impact, far below the spread of an ensemble; it halves the sweeps of rolling contacts.
ENSEMBLE_PGS_TOL = 1e-6
#: Newton iteration of the implicit free rotation (eq. 84)
NEWTON_TOL = 1e-14
NEWTON_MAX_ITER = 50
#: a vertex contact counts as closed when its gap is at most this, m (round-off of resting contacts)
GAP_TOL = 1e-8
