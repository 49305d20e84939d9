"""Stability of steady rotation: the extended intermediate axis theorem made computable.

The manifold of steady rotation about a principal axis and its Lyapunov function (Leine et al.
2021, section 3), the continuous eigenvalues (eq. 44), the spectra of the one-step maps of every
free-rotation scheme linearised about steady rotation (numerically from the scheme on its own
state manifold, split into the trivial eigenvalues of symmetries and conserved quantities and the
transverse ones that decide stability, and in closed form for the explicit scheme, eq. 55-60),
stability maps over time step and inertia ratio, and the flip period of the Dzhanibekov effect.

>>> from tumble.stability import one_step_spectrum, verdict
>>> lam = one_step_spectrum("explicit", (5/12, 10/12, 13/12), "major", rate=10.0, dt=0.01)
>>> verdict(lam)
'unstable'
"""

from tumble.stability.flip import (
    FlipPrediction,
    count_flips,
    elliptic_parameters,
    flip_counts,
    flip_intervals,
    flip_period,
    flip_prediction,
    flip_times,
)
from tumble.stability.linearize import (
    euler_jacobian,
    explicit_linear_map,
    one_step_jacobian,
)
from tumble.stability.manifold import (
    AXIS_NAMES,
    axis_deviation,
    lyapunov,
    lyapunov_along,
    lyapunov_form,
    lyapunov_parts,
    manifold_coordinates,
    rate_deviation,
    resolve_axis,
)
from tumble.stability.maps import StabilityMap, inertia_family, stability_map
from tumble.stability.spectra import (
    VERDICTS,
    continuous_eigenvalues,
    explicit_spectrum_closed_form,
    one_step_spectrum,
    spectral_radius,
    transverse_spectrum,
    verdict,
)
from tumble.stability.state_spectra import StateSpectrum, state_jacobian, state_spectrum

__all__ = [
    "AXIS_NAMES",
    "VERDICTS",
    "FlipPrediction",
    "StabilityMap",
    "StateSpectrum",
    "axis_deviation",
    "continuous_eigenvalues",
    "count_flips",
    "elliptic_parameters",
    "euler_jacobian",
    "explicit_linear_map",
    "explicit_spectrum_closed_form",
    "flip_counts",
    "flip_intervals",
    "flip_period",
    "flip_prediction",
    "flip_times",
    "inertia_family",
    "lyapunov",
    "lyapunov_along",
    "lyapunov_form",
    "lyapunov_parts",
    "manifold_coordinates",
    "one_step_jacobian",
    "one_step_spectrum",
    "rate_deviation",
    "resolve_axis",
    "spectral_radius",
    "stability_map",
    "state_jacobian",
    "state_spectrum",
    "transverse_spectrum",
    "verdict",
]
