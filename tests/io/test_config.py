"""The run configuration's schema agrees with the engine it configures."""

import typing

from tumble.io.config import RockfallConfig, SolverConfig
from tumble.rockfall.model import SCHEME_NAMES, Options


def test_config_schemes_are_the_engines():
    """``io`` knows no physics, so the schema spells the scheme names; they must be exactly the
    rotation schemes of the rockfall step."""
    allowed = typing.get_args(RockfallConfig.model_fields["scheme"].annotation)
    assert tuple(sorted(allowed)) == tuple(sorted(SCHEME_NAMES))


def test_every_solver_key_is_an_option():
    """Each key of ``[solver]`` (and dt, t_max, scheme) is a field of the engine's Options."""
    keys = set(SolverConfig.model_fields) | {"scheme", "dt", "t_max"}
    assert keys <= set(Options.names())
