"""Figures of ``tumble reproduce leine2021``: every panel says what its y axis is and in which
unit (Fig. 2 and 4: the body angular velocity in rad/s)."""

import pytest

import tumble.viz.reproduce as reproduce
from tumble.validation.leine2021 import leine2021


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    """The figures of a 2 s reproduction, kept open instead of saved."""
    kept = {}
    original = reproduce._save

    def keep(fig, path):
        kept[path.stem] = fig
        original(fig, path)

    reproduce._save = keep
    try:
        reproduce.plot_reproduction(leine2021(t_end=2.0), tmp_path_factory.mktemp("leine"))
    finally:
        reproduce._save = original
    return kept


@pytest.mark.parametrize("name", ["fig2_major_axis", "fig4_intermediate_axis"])
def test_angular_velocity_panels_have_a_y_label_with_unit(figures, name):
    panels = [ax for ax in figures[name].axes if ax.has_data()]
    assert len(panels) == 2  # explicit and implicit
    for ax in panels:
        assert ax.get_ylabel() == r"$\omega_i$ (rad/s)"


def test_every_panel_of_every_figure_has_a_y_label(figures):
    assert {"fig2_major_axis", "fig3_difference_vector", "fig4_intermediate_axis"} <= set(figures)
    for name, fig in figures.items():
        for ax in fig.axes:
            if ax.has_data():
                assert ax.get_ylabel().strip(), f"{name}: a panel without a y label"
