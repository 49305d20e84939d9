"""Runs as library calls: a configuration turned into a result folder (:class:`RockfallRun`), and
barrier statistics replayed on a finished run folder (:func:`replay_barriers`). The command line,
``tumble demo`` and scripts call these; the folder's layout is :mod:`tumble.io.run_folder`.

>>> from tumble.pipeline import RockfallRun
>>> outcome = RockfallRun.from_config(overrides=["rocks=20"]).run("out/small")
"""

from tumble.pipeline.replay import ReplayOutcome, replay_barriers
from tumble.pipeline.run import RockfallRun, RunOutcome

__all__ = ["ReplayOutcome", "RockfallRun", "RunOutcome", "replay_barriers"]
