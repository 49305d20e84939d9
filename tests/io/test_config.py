"""The run configuration's schema agrees with the engine it configures."""

import re
import typing
from pathlib import Path

import pytest

from tumble.io.config import RockfallConfig, SolverConfig, load_config, validate
from tumble.rockfall.step.model import SCHEME_NAMES, Options


def test_config_schemes_are_the_engines():
    """``io`` knows no physics, so the schema spells the scheme names; they must be exactly the
    rotation schemes of the rockfall step."""
    allowed = typing.get_args(RockfallConfig.model_fields["scheme"].annotation)
    assert tuple(sorted(allowed)) == tuple(sorted(SCHEME_NAMES))


def test_every_solver_key_is_an_option():
    """Each key of ``[solver]`` (and dt, t_max, scheme) is a field of the engine's Options."""
    keys = set(SolverConfig.model_fields) | {"scheme", "dt", "t_max"}
    assert keys <= set(Options.names())


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"rocks": True}, "rocks"),
        ({"rocks": 10.0}, "rocks"),
        ({"seed": "3"}, "seed"),
        ({"dt": "0.01"}, "dt"),
        ({"dt": True}, "dt"),
        ({"t_max": float("inf")}, "t_max"),
        ({"solver": {"gravity": -9.81}}, "solver.gravity"),
        ({"solver": {"gravity": 0}}, "solver.gravity"),
        ({"release": {"point": [True, 0.0]}}, "release.point.0"),
        ({"release": {"point": ["1", 0.0]}}, "release.point.0"),
        ({"output": {"figures": 1}}, "output.figures"),
        ({"seed": 2**64}, "seed"),
    ],
)
def test_strict_types_refuse_booleans_strings_and_bad_numbers(data, key):
    with pytest.raises(ValueError, match=rf"invalid configuration: {re.escape(key)}: "):
        validate(data)


def test_strict_types_keep_toml_integers_for_floats_and_arrays_for_tuples():
    config = validate(
        {"dt": 1, "t_max": 30, "release": {"point": [10, 0], "omega": [0, 1, 0]}, "rocks": 5}
    )
    assert config.dt == 1.0 and isinstance(config.dt, float)
    assert config.release.point == (10.0, 0.0) and config.release.omega == (0.0, 1.0, 0.0)
    assert load_config(overrides=["rock.box=[2,1,0.5]", "rock.shape=box"]).rock.box == (2, 1, 0.5)
    example = Path(__file__).resolve().parents[2] / "examples" / "slope40.toml"
    assert load_config(example).rocks == 1000


def test_class_codes_of_a_map_are_the_digits_of_their_toml_keys():
    """TOML keys are strings: "1" is class 1; a key that is not an integer is refused naming it."""
    from tumble.io.config import validate

    config = validate({"soil": {"map": "a.tif", "classes": {"1": "medium", "-2": "medium"}}})
    assert config.soil.classes == {1: "medium", -2: "medium"}
    with pytest.raises(ValueError, match=r"soil\.classes\.1\.5"):
        validate({"soil": {"map": "a.tif", "classes": {"1.5": "medium"}}})


def test_a_configuration_with_rock_classes_reads_back_from_its_whole_dump():
    """A run's provenance stores every key; with rock classes it must validate again unchanged
    (the default single-rock keys beside the classes are not 'given')."""
    from tumble.io.config import validate

    data = {
        "rock": {
            "classes": [
                {"name": "small", "shape": "eota111", "mass": 200.0, "share": 0.6},
                {"name": "large", "shape": "eota221", "mass": 800.0, "share": 0.4},
            ]
        }
    }
    config = validate(data)
    again = validate(config.physics())
    assert again.physics() == config.physics()
    with pytest.raises(ValueError, match=r"rock\.mass cannot be given with rock\.classes"):
        validate({"rock": {**data["rock"], "mass": 500.0}})
