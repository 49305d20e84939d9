"""Rock classes: several shapes and sizes in one run, as a block survey gives them.

A :class:`RockClass` has a ``name``, a shape (a :class:`~tumble.rockfall.rock.Rock`), a
``share`` of the rocks, and either a fixed mass (the shape's) or a distribution of block volume
(:class:`VolumeDistribution`):

* ``lognormal``: ``ln V ~ Normal(ln median_m3, sigma^2)``; ``median_m3`` is the median volume
  and ``sigma`` the standard deviation of ``ln V``;
* ``power_law``: a power law of the cumulative (exceedance) number of blocks,
  ``N(>V) ~ V^-b``, truncated to ``[min_m3, max_m3]``, the form of rockfall volume-frequency
  relations (Dussauge, Grasso & Helmstetter 2003, J. Geophys. Res. 108(B6) 2286); drawn
  by inverting its distribution function:
  ``V = (min^-b - u (min^-b - max^-b))^(-1/b)``. ``exponent`` is ``b > 0``.

No parameter value is built in: every one comes from the configuration (the site's survey).

A rock of a class with a volume distribution is its class's shape scaled isotropically to the
drawn volume ``V``: ``scale = (V / V_shape)^(1/3)``, mass ``rho V`` with the shape's density
(:class:`tumble.rockfall.ensemble.Ensemble` scales its vertices and inertia).

Randomness. Rock k draws its class and volume from its own stream
``default_rng(SeedSequence(seed, spawn_key=(k, CLASS_STREAM)))``, a child of the rock's release
stream ``SeedSequence(seed, spawn_key=(k,))`` kept apart from it, so that a rock's class does not
depend on where it starts, on the number of rocks or on chunking: first one uniform ``u`` chooses
the class (the first class whose cumulative share exceeds ``u``), then the volume (one uniform
for the power law, one normal for the lognormal). The number of rocks of a class is therefore
binomial(n, share).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tumble.errors import ConfigError
from tumble.rockfall.rock import Rock

#: spawn key of the class stream below a rock's stream (module docstring)
CLASS_STREAM = 1
#: tolerance on the sum of the shares
SHARE_TOLERANCE = 1e-6


def class_rng(seed: int, k: int) -> np.random.Generator:
    """The class-and-volume stream of rock ``k`` (module docstring)."""
    return np.random.default_rng(
        np.random.SeedSequence(int(seed), spawn_key=(int(k), CLASS_STREAM))
    )


@dataclass(frozen=True)
class VolumeDistribution:
    """A distribution of block volume, m^3 (module docstring): ``kind`` ``"lognormal"`` with
    ``median_m3`` and ``sigma``, or ``"power_law"`` with ``exponent``, ``min_m3``, ``max_m3``."""

    kind: Literal["lognormal", "power_law"]
    median_m3: float | None = None
    sigma: float | None = None
    exponent: float | None = None
    min_m3: float | None = None
    max_m3: float | None = None

    def __post_init__(self) -> None:
        def positive(name: str) -> float:
            value = getattr(self, name)
            if value is None or not (math.isfinite(float(value)) and float(value) > 0.0):
                raise ValueError(
                    f"a {self.kind} volume distribution needs a positive {name}, got {value!r}"
                )
            return float(value)

        if self.kind == "lognormal":
            positive("median_m3")
            positive("sigma")
        elif self.kind == "power_law":
            positive("exponent")
            if positive("min_m3") >= positive("max_m3"):
                raise ValueError(
                    f"a power_law volume distribution needs min_m3 < max_m3, got "
                    f"{self.min_m3!r} and {self.max_m3!r}"
                )
        else:
            raise ValueError(f"unknown volume distribution {self.kind!r}: lognormal or power_law")

    def draw(self, rng: np.random.Generator) -> float:
        """One volume, m^3, from ``rng``."""
        if self.kind == "lognormal":
            assert self.median_m3 is not None and self.sigma is not None
            return float(self.median_m3 * math.exp(self.sigma * float(rng.standard_normal())))
        assert self.exponent is not None and self.min_m3 is not None and self.max_m3 is not None
        b = self.exponent
        u = float(rng.random())
        low, high = self.min_m3**-b, self.max_m3**-b
        return float((low - u * (low - high)) ** (-1.0 / b))

    def describe(self) -> dict[str, Any]:
        """The distribution with the keys of a configuration's ``volume`` table."""
        keys = {"median_m3": "median", "sigma": "sigma", "exponent": "exponent"}
        keys.update(min_m3="min", max_m3="max")
        out: dict[str, Any] = {"distribution": self.kind}
        out.update({keys[k]: v for k, v in self.__dict__.items() if k in keys and v is not None})
        return out


@dataclass(frozen=True, eq=False)
class RockClass:
    """A class of rocks (module docstring): ``shape`` at the class's mass, or at any size when
    ``volume`` is a distribution."""

    name: str
    shape: Rock
    share: float
    volume: VolumeDistribution | None = None

    def describe(self) -> dict[str, Any]:
        """The class as the resolved configuration shows it."""
        out: dict[str, Any] = {"name": self.name, "shape": self.shape.name, "share": self.share}
        if self.volume is None:
            out.update(mass=float(self.shape.mass), volume_m3=float(self.shape.volume))
        else:
            out["volume"] = self.volume.describe()
        # the density is the hull's mass over its volume: shown to 12 digits, so that the
        # 2740 kg/m^3 of a class reads 2740 and not 2739.9999999999995
        out["density"] = float(f"{self.shape.density:.12g}")
        return out


def check_shares(shares: Sequence[float], where: str = "rock.classes") -> None:
    """ValueError unless the shares are positive and sum to 1 (within :data:`SHARE_TOLERANCE`)."""
    values = [float(s) for s in shares]
    if not values or any(not (math.isfinite(s) and s > 0.0) for s in values):
        raise ValueError(f"{where}: every share must be a positive number, got {values}")
    total = math.fsum(values)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        raise ValueError(
            f"{where}: the shares sum to {total:.6g}; they must sum to 1 "
            f"({' + '.join(f'{s:g}' for s in values)})"
        )


@dataclass(frozen=True, eq=False)
class ClassDraw:
    """The classes of n rocks: ``class_id`` (n,), ``scale`` (n,) of the class shape, ``mass``
    (n,) kg; the arguments ``shape_id``, ``scale``, ``mass`` of an Ensemble whose shapes are the
    classes' shapes in order."""

    class_id: np.ndarray
    scale: np.ndarray
    mass: np.ndarray


def draw_classes(
    classes: Sequence[RockClass], n: int, seed: int, class_id: np.ndarray | None = None
) -> ClassDraw:
    """Class, scale and mass of rocks ``0 .. n - 1`` (module docstring). ``class_id`` (n,)
    gives the classes (stratified sampling, :mod:`tumble.rockfall.release.strata`): the first
    uniform of each class stream is then passed over, so that the volumes are drawn from the
    same place of the streams."""
    check_shares([c.share for c in classes])
    cumulative = np.cumsum([c.share for c in classes])
    cumulative[-1] = 1.0  # a rounding shortfall of the sum never leaves u without a class
    given = class_id
    class_id = np.empty(n, dtype=np.int64)
    scale = np.ones(n)
    mass = np.empty(n)
    for k in range(n):
        rng = class_rng(seed, k)
        c = int(np.searchsorted(cumulative, float(rng.random()), side="right"))
        c = min(c, len(classes) - 1) if given is None else int(given[k])
        rock_class = classes[c]
        class_id[k] = c
        if rock_class.volume is None:
            mass[k] = rock_class.shape.mass
        else:
            volume = rock_class.volume.draw(rng)
            scale[k] = (volume / rock_class.shape.volume) ** (1.0 / 3.0)
            mass[k] = rock_class.shape.density * volume
    return ClassDraw(class_id, scale, mass)


#: the mass of an EOTA rock given neither a mass nor a size, kg (the EOTA221 blocks of the
#: ensembles of Leine et al. 2021)
DEFAULT_EOTA_MASS = 780.0


def rock_from_section(c: Any, base: Path, key: str = "rock") -> Rock:
    """The :class:`Rock` of a ``[rock]`` table or a ``[[rock.classes]]`` table (anything with
    ``shape``, ``mass``, ``size``, ``density``, ``box``, ``file`` and optionally ``volume``)
    whose key is ``key`` (``"rock"``, ``"rock.classes.0"``); ConfigError with the key of the
    offending field (``rock.box``, ``rock.classes.0.file``), or of the table for a rock it cannot
    build. A ``volume`` (m^3) sets the size of the shape at the rock's density (default
    2740 kg/m^3): an EOTA block of that volume, a box or a file's hull scaled isotropically to
    it; it goes with neither ``mass`` nor ``size``."""
    from tumble.bodies.catalogue import ROCK_DENSITY

    volume = getattr(c, "volume", None)
    if volume is not None:
        given = [f"{key}.{n}" for n in ("mass", "size") if getattr(c, n) is not None]
        if given:
            raise ConfigError(
                f"{key}.volume sets the rock's size at its density: give one of {key}.mass, "
                f"{key}.size or {key}.volume, not {' and '.join([*given, f'{key}.volume'])}",
                f"{key}.volume",
            )
    if c.shape in ("eota221", "eota111"):
        if c.box is not None or c.file is not None:
            raise ConfigError(
                f"{key}.box and {key}.file do not apply to {key}.shape = {c.shape}",
                f"{key}.box" if c.box is not None else f"{key}.file",
            )
    elif c.size is not None:
        raise ConfigError(
            f"{key}.size applies to the EOTA shapes, not {key}.shape = {c.shape}", f"{key}.size"
        )
    elif c.shape == "box" and c.box is None:
        raise ConfigError(
            f"{key}.box = [a, b, c] (m) is required with {key}.shape = 'box'", f"{key}.box"
        )
    elif c.shape == "file" and c.file is None:
        raise ConfigError(f"{key}.file is required with {key}.shape = 'file'", f"{key}.file")
    try:
        if c.shape in ("eota221", "eota111"):
            mass, density = c.mass, c.density
            if volume is not None:
                density = density or ROCK_DENSITY
                mass = density * float(volume)
            elif c.mass is None and c.size is None:
                mass = DEFAULT_EOTA_MASS
            build = Rock.eota221 if c.shape == "eota221" else Rock.eota111
            return build(size=c.size, mass=mass, density=density)
        if c.shape == "box":
            a, b, h = c.box
            rock = Rock.box(a, b, h, density=c.density, mass=c.mass)
        else:
            rock = Rock.from_file(
                c.file if Path(c.file).is_absolute() else base / c.file, c.density, c.mass
            )
        return rock if volume is None else rock.with_volume(volume)
    except (ValueError, OSError) as err:
        raise ConfigError(str(err), f"{key}.file" if c.shape == "file" else key) from err
