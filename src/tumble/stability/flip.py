"""Flips of the Dzhanibekov effect: predicted from the elliptic solution, measured in simulations.

Near the intermediate axis the body rotates for a while, turns over and rotates the other way
round. A flip is defined once, in :mod:`tumble.freerot.flips` (a reversal of the intermediate
axis with respect to the angular momentum, counted only while that axis is the principal axis
nearest to ``L``); this module re-exports its functions: :func:`flip_period` (``2 K(k) / lam``,
``inf`` for a stable spin), :func:`flip_prediction` (whether, how often and why),
:func:`flip_times`, :func:`flip_intervals` and :func:`count_flips` of a simulated trajectory,
and :func:`elliptic_parameters` of :mod:`tumble.freerot.exact`.
"""

from __future__ import annotations

from tumble.freerot.exact import elliptic_parameters
from tumble.freerot.flips import (
    FlipPrediction,
    count_flips,
    flip_counts,
    flip_intervals,
    flip_period,
    flip_prediction,
    flip_times,
)

__all__ = [
    "FlipPrediction",
    "count_flips",
    "elliptic_parameters",
    "flip_counts",
    "flip_intervals",
    "flip_period",
    "flip_prediction",
    "flip_times",
]
