"""Bayesian rounds of the search of ``tumble rockfall calibrate`` (``--bayes N``).

After the Latin hypercube (and the zoom rounds, if any), ``N`` further sets are proposed by the
tree-structured Parzen estimator (TPE; Bergstra, Bardenet, Bengio & Kegl 2011, "Algorithms for
hyper-parameter optimization", NeurIPS 24) of Optuna (Akiba et al. 2019, KDD;
``optuna.samplers.TPESampler``, multivariate, seeded by the calibration's seed). Every set
evaluated before is its history. The sets are proposed :data:`BATCH` at a time (the pending ones
lie to the estimator as the worst seen so far, Optuna's ``constant_liar``), so that a batch runs
in parallel on the run's threads or its Dask cluster; each batch is told its scores in the order
it was proposed. The proposals depend only on the seed, the history and the batch size, never on
the number of threads or workers.

The number the estimator minimises, :func:`acquisition`, is the objective of :mod:`.scores`
plus the decades by which the set's KS p-value falls below :data:`~.scores.KS_LEVEL`: the sets
the observations do not reject come first, as :func:`.search.ranked` orders them, and a set
rejected at ``p = 1e-4`` weighs more than one rejected at ``p = 0.01``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from tumble._check import require
from tumble.pipeline.calibration.scores import KS_LEVEL
from tumble.pipeline.calibration.site import FreeField

#: sets proposed together, run in parallel, then told together
BATCH = 8
#: the score of a set without a regular rock (no objective)
NO_SCORE = 1.0e6


def acquisition(scores: dict[str, Any]) -> float:
    """The number the estimator minimises for a set's ``scores``: ``objective + max(0,
    log10(KS_LEVEL / ks_pvalue))``."""
    objective = float(scores.get("objective", math.inf))
    if not math.isfinite(objective):
        return NO_SCORE
    p = max(float(scores.get("ks_pvalue", 0.0)), 1.0e-300)
    return objective + max(0.0, math.log10(KS_LEVEL / p))


class Proposer:
    """Optuna's TPE over the free fields' ranges, seeded by ``seed``."""

    def __init__(self, free: Sequence[FreeField], seed: int) -> None:
        optuna = require("optuna", "calibrate", "--bayes")
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self._optuna = optuna
        self._space = {f.name: optuna.distributions.FloatDistribution(f.low, f.high) for f in free}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            sampler = optuna.samplers.TPESampler(
                seed=int(seed), multivariate=True, constant_liar=True, n_startup_trials=0
            )
        self._study = optuna.create_study(direction="minimize", sampler=sampler)

    def tell_history(self, sets: Sequence[dict[str, Any]]) -> None:
        """Add evaluated ``sets`` (``values`` and scores) as finished trials."""
        create = self._optuna.trial.create_trial
        for s in sets:
            params = {
                name: min(max(float(s["values"][name]), d.low), d.high)
                for name, d in self._space.items()
            }
            self._study.add_trial(
                create(params=params, distributions=self._space, value=acquisition(s))
            )

    def propose(self, n: int) -> tuple[list[Any], list[dict[str, float]]]:
        """``n`` new sets and their pending trials (to :meth:`tell`)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", self._optuna.exceptions.ExperimentalWarning)
            trials = [self._study.ask(self._space) for _ in range(n)]
        return trials, [{name: float(t.params[name]) for name in self._space} for t in trials]

    def tell(self, trials: Sequence[Any], sets: Sequence[dict[str, Any]]) -> None:
        """The scores of the sets the pending ``trials`` proposed, in the same order."""
        for trial, s in zip(trials, sets, strict=True):
            self._study.tell(trial, acquisition(s))
