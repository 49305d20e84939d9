"""When a soil holds a rock on a plane: closed forms of the friction law of
:mod:`tumble.rockfall.soil` (the slippage at which it holds a sliding rock, the slope below which
it can) and of the slope from which a rock lying on a face tips over its lower edge."""

from __future__ import annotations

import math


def holding_slippage(mu_min: float, mu_max: float, kappa: float, slope_deg: float) -> float:
    """The slippage ``s*`` (m) at which the friction law reaches ``tan(slope)``: the friction
    that holds a rock sliding down a plane of ``slope_deg`` degrees; ``inf`` if it never does.

    A rock at rest on a plane (or sliding on it at a constant speed) is pushed down the slope by
    ``m g sin(theta)`` and pressed on it by ``m g cos(theta)``; whatever its contacts and
    however it turns, the friction forces sum to at most ``mu`` times the normal ones, so
    sliding slows down only where ``mu >= tan(theta)``, and a rock can rest on the plane only
    there. With ``mu(s) = mu_min + (2/pi)(mu_max - mu_min) atan(kappa s)`` (module docstring)::

        s* = 0                                                   if mu_min >= tan(theta)
        s* = tan(pi/2 (tan(theta) - mu_min) / (mu_max - mu_min)) / kappa
                                                                 if mu_min < tan(theta) < mu_max
        s* = inf                                                 if mu_max <= tan(theta)

    (``mu`` tends to ``mu_max`` without reaching it, so ``mu_max = tan(theta)`` does not hold a
    sliding rock; Coulomb friction, ``kappa = 0`` or ``mu_min = mu_max``, holds at once or
    never). Example (L14 section 5.1): ``mu_min = 0.2``, ``mu_max = 1.3``, ``kappa = 0.7``,
    45 degrees: ``s* = tan(0.8 pi / 2.2) / 0.7 = 3.12 m``.

    Whether a rock slides at all is another question: a rock that tips onto its next face and
    tumbles gathers slippage too (L14 eq. 51 counts the speed of the centre of mass while the
    rock touches), and a block sliding on a face tips over its front edge only when
    ``mu`` exceeds its half length over the height of its centre of mass (the normal force
    moves forward by ``mu`` times that height); a flat block whose ratio exceeds ``mu_max``
    slides on until it is held (``docs/reach_and_start.md``).
    """
    for name, value in (("mu_min", mu_min), ("mu_max", mu_max), ("kappa", kappa)):
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"{name} must be finite and non-negative, got {value!r}")
    if mu_max < mu_min:
        raise ValueError(f"mu_max must be at least mu_min, got {mu_min!r}, {mu_max!r}")
    if not (math.isfinite(slope_deg) and 0.0 <= slope_deg < 90.0):
        raise ValueError(f"slope must lie in [0, 90) degrees, got {slope_deg!r}")
    tan_slope = math.tan(math.radians(slope_deg))
    if mu_min >= tan_slope:
        return 0.0
    if mu_max <= tan_slope or kappa == 0.0:
        return math.inf
    return math.tan(0.5 * math.pi * (tan_slope - mu_min) / (mu_max - mu_min)) / kappa


def holding_angle(mu_min: float, mu_max: float, kappa: float) -> float:
    """The slope (degrees) below which the friction law holds a sliding rock
    (:func:`holding_slippage` finite): ``atan(mu_max)``, or ``atan(mu_min)`` without scarring
    (``kappa = 0``: the friction stays ``mu_min``)."""
    return math.degrees(math.atan(mu_max if kappa > 0.0 else mu_min))


def tipping_angle(
    half_length: float, centre_height: float, rolling_resistance: float = 0.0, radius: float = 0.0
) -> float:
    """The slope (degrees) from which a rock lying on a face, held by friction, tips over the
    face's lower edge: ``atan((a + mu_r R) / h)``.

    ``half_length`` ``a``: distance down the slope from the foot of the centre of mass to the
    edge (m); ``centre_height`` ``h``: height of the centre of mass above the face (m). About that
    edge gravity turns the rock down the slope with ``m g (h sin(theta) - a cos(theta))``; the
    rolling resistance (module docstring) opposes a start of rotation with up to ``mu_r R m g
    cos(theta)``, ``R`` the distance of the face's vertices from the centre of mass. Below this
    slope a rock on that face stays on it, and if the friction holds it (:func:`holding_slippage`)
    it stops. A block already sliding tips forward once ``mu > a / h`` (the normal force moves
    ``mu h`` forward); a flat block whose ``a / h`` exceeds ``mu_max`` slides until it is held.
    Examples: EOTA221 on a large face ``a = h = L/4``: 45 deg, with ``mu_r = 0.15`` and ``R =
    sqrt(3) L/4``: 51.6 deg; EOTA111 on a square face ``a = L/4, h = L/2``: 26.6 deg.
    """
    for name, value in (
        ("half_length", half_length),
        ("rolling_resistance", rolling_resistance),
        ("radius", radius),
    ):
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"{name} must be finite and non-negative, got {value!r}")
    if not (math.isfinite(centre_height) and centre_height > 0.0):
        raise ValueError(f"centre_height must be finite and positive, got {centre_height!r}")
    return math.degrees(math.atan((half_length + rolling_resistance * radius) / centre_height))
