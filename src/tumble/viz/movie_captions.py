"""The captions of a free-rotation movie's frames: what the filmed trajectory is (the exact motion,
or a scheme with its order and step) and, for a scheme, what it gets wrong against the exact
motion over its duration (:func:`tumble.freerot.deviation.deviation_from_exact`)."""

from __future__ import annotations

import math


def number(x: float) -> str:
    """Two significant digits, without an exponent from 0.01 to 10^5."""
    if x == 0.0 or not 0.01 <= abs(x) < 1e5:
        return f"{x:.1e}"
    digits = max(0, 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{digits}f}"


def percent(x: float) -> str:
    return f"{number(100.0 * x)} %" if x >= 1e-3 else f"{x:.1e}"


def what_it_gets_wrong(trajectory) -> str:
    """One line saying how a scheme's ``trajectory`` departs from the exact motion over its
    duration (:func:`tumble.freerot.deviation.deviation_from_exact`), for its movie's frames."""
    from tumble.freerot.deviation import deviation_from_exact

    dev = deviation_from_exact(trajectory)
    relative = dev.omega_error / dev.omega_scale if dev.omega_scale > 0 else 0.0
    faults = []
    if dev.energy_drift > 1e-9:
        faults.append(f"energy drifts by {percent(dev.energy_drift)}")
    if dev.spin_norm_drift > 1e-9:
        faults.append(f"|L| drifts by {percent(dev.spin_norm_drift)}")
    if dev.spin_turn_deg > 1e-6:
        faults.append(f"L turns by {number(dev.spin_turn_deg)}°")
    if dev.flips != dev.exact_flips:
        faults.append(f"{dev.flips} flips where the body makes {dev.exact_flips}")
    if not faults:
        return (
            f"over {dev.t_end:g} s it keeps energy and L, but ω is up to {percent(relative)} "
            f"of |ω0| and the attitude {number(dev.attitude_error_deg)}° off the exact motion"
        )
    faults.append(f"ω up to {percent(relative)} of |ω0| off")
    if dev.attitude_error_deg > 0.1:
        faults.append(f"attitude up to {number(dev.attitude_error_deg)}° off")
    return f"wrong over {dev.t_end:g} s: " + ", ".join(faults)


def describe(trajectory) -> tuple[str, str]:
    """What ``trajectory`` is (the first line of every frame) and the line under it."""
    if trajectory.scheme == "exact":
        from tumble.freerot.flips import count_flips

        flips = count_flips(trajectory)
        turns = f"; it flips {flips} times" if flips else ""
        return (
            "exact solution",
            f"the motion itself (Jacobi elliptic functions): energy and L are constant{turns}",
        )
    from tumble.freerot import STEPPERS

    cls = STEPPERS.get(trajectory.scheme)
    order = f"order {cls.order}, " if cls is not None else ""
    step = f"dt = {trajectory.dt:g} s" if trajectory.dt else "time-stepped"
    name = f"{trajectory.scheme} scheme ({order}{step}), a numerical approximation"
    return name, what_it_gets_wrong(trajectory)
