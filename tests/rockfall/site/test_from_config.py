"""The configuration compiler (tumble.rockfall.site.from_config): ``[rock] volume`` for a single
rock as for a rock class, against the closed-form mass properties of the shapes."""

from pathlib import Path

import numpy as np
import pytest

from tumble.bodies.catalogue import ROCK_DENSITY
from tumble.errors import ConfigError
from tumble.io.config import load_config
from tumble.rockfall.rock import Rock
from tumble.rockfall.site.from_config import build_rock


def rock_of(*overrides: str) -> Rock:
    return build_rock(load_config(None, {}, list(overrides)), Path("."))


def test_a_single_rock_of_a_given_volume_is_its_shape_at_the_rock_density():
    # EOTA221: V = (17/48) L^3, so L = (48 V / 17)^(1/3)
    eota = rock_of("rock.volume=0.5")
    size = (48.0 * 0.5 / 17.0) ** (1.0 / 3.0)
    assert eota.volume == pytest.approx(0.5, rel=1e-12)
    assert eota.mass == pytest.approx(ROCK_DENSITY * 0.5, rel=1e-12)
    np.testing.assert_allclose(eota.vertices, Rock.eota221(size=size).vertices, rtol=1e-12)
    # a 1 m cube scaled to 8 m^3 is the 2 m cube: mass 8 rho, moments m (2^2 + 2^2) / 12
    box = rock_of('rock.shape="box"', "rock.box=[1, 1, 1]", "rock.volume=8", "rock.density=2500")
    assert box.volume == pytest.approx(8.0, rel=1e-12)
    assert box.mass == pytest.approx(20000.0, rel=1e-12)
    np.testing.assert_allclose(box.inertia, 20000.0 * 8.0 / 12.0, rtol=1e-12)
    np.testing.assert_allclose(np.abs(box.vertices), 1.0, rtol=1e-12)


@pytest.mark.parametrize("other", ["rock.mass=500", "rock.size=0.9"])
def test_a_volume_goes_with_neither_a_mass_nor_a_size(other):
    with pytest.raises(ConfigError, match=r"rock\.volume") as caught:
        rock_of("rock.volume=0.5", other)
    assert caught.value.key == "rock.volume"
    assert other.split("=")[0] in str(caught.value)


def test_a_box_class_of_a_given_volume_is_scaled_to_it(tmp_path):
    config = tmp_path / "classes.toml"
    config.write_text(
        '[[rock.classes]]\nname = "slabs"\nshare = 1.0\nshape = "box"\nbox = [2.0, 1.0, 0.5]\n'
        "volume = 8.0\n"
    )
    from tumble.rockfall.site.from_config import _rock_classes

    (slabs,) = _rock_classes(load_config(config), tmp_path)
    # 2 x 1 x 0.5 (1 m^3) scaled by 2 to 8 m^3: 4 x 2 x 1, at 2740 kg/m^3
    assert slabs.shape.volume == pytest.approx(8.0, rel=1e-12)
    assert slabs.shape.mass == pytest.approx(8.0 * ROCK_DENSITY, rel=1e-12)
    np.testing.assert_allclose(slabs.shape.vertices.max(axis=0), [2.0, 1.0, 0.5], rtol=1e-12)
