"""Parameter uncertainty carried into the prediction: each rock draws its soil parameters.

A soil category of the catalogue (:data:`tumble.rockfall.soil.CATALOGUE`) may carry a spread
(:class:`tumble.rockfall.soil.SoilPreset`). With an uncertainty mode other than ``"none"`` every
rock runs with parameters drawn for it alone:

* ``"category"``: each field with a range ``(low, high)`` in the category's ``spread`` is drawn
  uniformly from it, ``low + (high - low) u_j``; the other fields keep the category's values;
* ``"sets"``: one of the category's ``sets`` (parameter sets a calibration cannot tell apart),
  each with probability ``1 / n_sets``: set ``floor(u_0 n_sets)``, or, for the categories of
  one calibration, the category's part of the combined set ``floor(u_0 n_joint)``
  (:func:`set_index`).

The uniforms ``u = (u_0, u_1, ..., u_F)`` of rock ``k`` (one for the set, one per field of
:data:`~tumble.rockfall.soil.FIELDS`, always all of them whatever the mode) come from its soil
stream ``default_rng(SeedSequence(seed, spawn_key=(k, SOIL_STREAM)))``, a child of the rock's
release stream ``SeedSequence(seed, spawn_key=(k,))`` kept apart from it and from the class
stream of :mod:`tumble.rockfall.site.rock_classes`: turning the uncertainty on changes neither
where the rocks start nor their classes, and a rock's draw does not depend on the chunks, the
threads or the other rocks. In a soil map every class uses the same ``u`` of the rock: a rock
runs with one combined set of the calibration in every class (the Authume categories' sets
are parts of its six combined sets: the first stage's three, each with the second stage's
two), and a rock that draws a high ``mu_r`` in one class draws the same quantile in the
others.

The drawn parameters are epistemic: they say what the site's calibration or the category's
source cannot pin down. Pooling the rocks over the draws gives maps, barrier values and zones
that include this model uncertainty.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tumble.rockfall.soil import CATALOGUE, FIELDS, SoilPreset

#: the modes of ``soil.uncertainty`` (module docstring)
UNCERTAINTY_MODES = ("none", "category", "sets")
#: spawn key of the soil stream below a rock's stream (module docstring); the class stream of
#: :mod:`tumble.rockfall.site.rock_classes` is 1
SOIL_STREAM = 2
#: uniforms drawn per rock: the set and one per field
N_UNIFORMS = 1 + len(FIELDS)


def soil_rng(seed: int, k: int) -> np.random.Generator:
    """The soil stream of rock ``k`` (module docstring)."""
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(k), SOIL_STREAM)))


def soil_uniforms(seed: int, rocks: np.ndarray | int) -> np.ndarray:
    """The uniforms (n, :data:`N_UNIFORMS`) of rocks ``rocks`` (indices, or ``range(n)`` for
    an int): row i from the soil stream of rock ``rocks[i]``."""
    index = np.arange(rocks) if isinstance(rocks, int | np.integer) else np.asarray(rocks)
    out = np.empty((index.size, N_UNIFORMS))
    for i, k in enumerate(index.tolist()):
        out[i] = soil_rng(seed, k).random(N_UNIFORMS)
    return out


def check_mode(preset: SoilPreset, name: str, mode: str) -> None:
    """ValueError unless ``mode`` is a known mode the category ``name`` can draw from."""
    if mode not in UNCERTAINTY_MODES:
        raise ValueError(
            f"unknown soil uncertainty {mode!r}; choose one of {', '.join(UNCERTAINTY_MODES)}"
        )
    if mode == "category" and not preset.spread:
        raise ValueError(
            f"soil category {name!r} has no published spread to draw from (uncertainty = "
            f"'category'); categories with one: {', '.join(with_spread('category'))}"
        )
    if mode == "sets" and not preset.sets:
        raise ValueError(
            f"soil category {name!r} has no equivalent parameter sets (uncertainty = 'sets'); "
            f"categories with them: {', '.join(with_spread('sets'))}"
        )


def with_spread(mode: str) -> list[str]:
    """The catalogue's categories that can draw in ``mode``."""
    return [n for n, p in CATALOGUE.items() if (p.spread if mode == "category" else p.sets)]


def n_draws(preset: SoilPreset, mode: str) -> int:
    """How many distinct parameter sets ``mode`` draws from (0: continuous)."""
    if mode == "none":
        return 1
    return len(preset.sets) if mode == "sets" else 0


def set_index(u0: np.ndarray | float, n_sets: int, stride: int = 1, joint: int = 0) -> np.ndarray:
    """The set of each rock: ``floor(u_0 n_sets)`` (at most ``n_sets - 1``) for sets of their
    own; for sets of a calibration's ``joint`` combined sets, where each set of this preset
    goes with ``stride`` consecutive ones, ``(floor(u_0 joint) // stride) mod n_sets``, so that
    every preset of the calibration takes its part of the same combined set (the first
    stage's with stride 2 of 6: ``floor(3 u_0)``)."""
    joint = joint or n_sets * stride
    combined = np.minimum((np.asarray(u0) * joint).astype(np.int64), joint - 1)
    return (combined // stride) % n_sets


def preset_set_index(preset: SoilPreset, u0: np.ndarray | float) -> np.ndarray:
    """:func:`set_index` of a category of the catalogue."""
    return set_index(u0, len(preset.sets), preset.set_stride, preset.set_joint)


def draw_values(preset: SoilPreset, mode: str, uniforms: np.ndarray) -> np.ndarray:
    """The drawn parameters (n, len(FIELDS)) of each rock from its uniforms (n, N_UNIFORMS):
    the category's values (or the drawn set; fields not given take the defaults of
    :class:`~tumble.rockfall.soil.Soil`, all zero), then the drawn fields of ``"category"``."""
    uniforms = np.atleast_2d(np.asarray(uniforms, dtype=np.float64))
    n = uniforms.shape[0]
    base = np.zeros(len(FIELDS))
    for j, name in enumerate(FIELDS):
        base[j] = float(preset.values.get(name, 0.0))
    out = np.tile(base, (n, 1))
    if mode == "sets":
        table = np.zeros((len(preset.sets), len(FIELDS)))
        for s, values in enumerate(preset.sets):
            for j, name in enumerate(FIELDS):
                table[s, j] = float(values.get(name, 0.0))
        out = table[preset_set_index(preset, uniforms[:, 0])]
    if mode == "category":
        for name, (low, high) in preset.spread.items():
            j = FIELDS.index(name)
            out[:, j] = low + (high - low) * uniforms[:, 1 + j]
    return out


def describe(draws: Mapping[str, tuple[str, str]]) -> dict:
    """What ``summary.json`` says about the uncertainty applied (``summary["soil"]
    ["uncertainty"]``): per soil that draws (``"soil"`` or ``"class 3"``: ``(category, mode)``)
    its mode, category, source, and the uniform ranges or the number of sets; ``mode`` is the
    one mode of all of them (``"none"`` when nothing is drawn, ``"mixed"`` for several)."""
    modes = sorted({mode for _, mode in draws.values() if mode != "none"})
    out: dict = {"mode": modes[0] if len(modes) == 1 else ("mixed" if modes else "none")}
    out["categories"] = {}
    for where, (name, mode) in draws.items():
        if mode == "none":
            continue
        preset = CATALOGUE[name]
        entry: dict = {"category": name, "mode": mode, "source": preset.spread_source}
        if mode == "category":
            entry["uniform"] = {k: [float(a), float(b)] for k, (a, b) in preset.spread.items()}
        else:
            entry["sets"] = len(preset.sets)
        out["categories"][where] = entry
    return out
