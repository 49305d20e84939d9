"""The solver defaults (``tumble.solver_defaults``) are those of the engine's options and of the
run configuration's schema: one value for each setting, wherever a run starts."""

import dataclasses

import pytest

from tumble import solver_defaults
from tumble.io.config import RockfallConfig
from tumble.rockfall.ensemble import ENSEMBLE_OPTIONS
from tumble.rockfall.site.from_config import solver_options
from tumble.rockfall.step.model import Options

#: Options field -> its default in tumble.solver_defaults
DEFAULTS = {
    "scheme": solver_defaults.SCHEME,
    "dt": solver_defaults.DT,
    "t_max": solver_defaults.T_MAX,
    "gravity": solver_defaults.GRAVITY,
    "rest_speed": solver_defaults.REST_SPEED,
    "rest_time": solver_defaults.REST_TIME,
    "pgs_tol": solver_defaults.PGS_TOL,
    "pgs_max_iter": solver_defaults.PGS_MAX_ITER,
    "newton_tol": solver_defaults.NEWTON_TOL,
    "newton_max_iter": solver_defaults.NEWTON_MAX_ITER,
    "gap_tol": solver_defaults.GAP_TOL,
}


def test_every_option_has_its_default_here():
    assert set(DEFAULTS) == set(Options.names())
    assert dataclasses.asdict(Options()) == DEFAULTS


def test_the_ensembles_differ_only_in_the_gauss_seidel_tolerance():
    assert dataclasses.asdict(ENSEMBLE_OPTIONS) == {
        **DEFAULTS,
        "pgs_tol": solver_defaults.ENSEMBLE_PGS_TOL,
    }


@pytest.mark.parametrize("name", ["scheme", "dt", "t_max"])
def test_the_configuration_defaults_are_the_engines(name):
    assert RockfallConfig.model_fields[name].default == DEFAULTS[name]


def test_an_empty_configuration_runs_with_the_ensemble_options():
    assert solver_options(RockfallConfig()) == ENSEMBLE_OPTIONS
