"""How the layers of a run's settings meet on the command line (``tumble rockfall run``): the
configuration file, then the options, then the ``key=value`` overrides. A later layer's rock
size (mass, size or volume) replaces the file's, an inline table override sets its keys beside
the options given with it, and an unknown key is answered with the section that has it."""

import pytest

from tumble.cli.main import main, parse
from tumble.cli.rockfall import _settings
from tumble.errors import ConfigError
from tumble.io.config import load_config

#: the rock density of the EOTA shapes, kg/m^3
DENSITY = 2740.0


def resolved(*argv: str):
    """The configuration ``tumble rockfall run ARGV`` runs with."""
    args = parse(["rockfall", "run", *argv])
    return load_config(args.config, _settings(args), args.overrides)


@pytest.fixture
def config_with_mass(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('scenario = "slope40"\nrocks = 2\n\n[rock]\nshape = "eota221"\nmass = 500.0\n')
    return str(path)


@pytest.mark.parametrize(
    ("option", "key", "value"),
    [("--mass", "mass", 600.0), ("--volume", "volume", 0.5), ("--size", "size", 0.8)],
)
def test_a_size_option_replaces_the_files_mass(config_with_mass, option, key, value):
    rock = resolved("--config", config_with_mass, option, str(value)).rock
    assert getattr(rock, key) == value
    assert [k for k in ("mass", "size", "volume") if getattr(rock, k) is not None] == [key]


def test_an_override_replaces_the_size_the_options_gave(config_with_mass):
    rock = resolved("--config", config_with_mass, "--volume", "0.5", "rock.mass=900").rock
    assert (rock.mass, rock.volume, rock.size) == (900.0, None, None)


def test_two_sizes_in_one_layer_are_still_refused(tmp_path):
    path = tmp_path / "both.toml"
    path.write_text('scenario = "slope40"\n[rock]\nmass = 500.0\nvolume = 0.5\n')
    from tumble.pipeline import RockfallRun

    with pytest.raises(ConfigError, match=r"not rock\.mass and rock\.volume"):
        RockfallRun.from_config(str(path), {}, [])


def test_an_inline_table_override_keeps_the_volume_given_beside_it():
    """``--volume 0.5 rock={shape = "eota111"}``: an EOTA111 block of 0.5 m^3 (1370 kg at the
    EOTA density), not the shape's default 780 kg."""
    from tumble.pipeline import RockfallRun

    args = parse(["rockfall", "run", "--rocks", "2", "--volume", "0.5", 'rock={shape = "eota111"}'])
    run = RockfallRun.from_config(args.config, _settings(args), args.overrides)
    assert run.config.rock.shape == "eota111" and run.config.rock.volume == 0.5
    assert run.ensemble.rock(0).mass == pytest.approx(0.5 * DENSITY, rel=1e-9)


def test_unknown_key_names_the_section_that_has_it(capsys):
    """``threads=1`` is refused, naming ``run.threads``; a run key in the wrong section names the
    top-level one (exit status 2, nothing run)."""
    assert main(["rockfall", "run", "threads=1"]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'threads' (did you mean run.threads?" in err
    with pytest.raises(ConfigError, match=r"unknown key 'run\.seed' \(did you mean seed\?") as e:
        resolved("run.seed=3")
    assert e.value.key == "run.seed"


def test_an_inline_table_sets_its_keys_into_the_table_there():
    from tumble.io.overrides import apply_overrides, override_keys

    data = {"soil": {"preset": "medium", "classes": {"1": "hard", "2": "soft"}}}
    given = ['soil={classes={1={preset = "hard", mu_min = 0.3}}}', "rocks=3"]
    assert apply_overrides(data, given) == {
        "soil": {
            "preset": "medium",
            "classes": {"1": {"preset": "hard", "mu_min": 0.3}, "2": "soft"},
        },
        "rocks": 3,
    }
    assert data["soil"]["classes"]["1"] == "hard"  # the input is left as it was
    assert override_keys(given) == ["soil.classes.1.preset", "soil.classes.1.mu_min", "rocks"]
