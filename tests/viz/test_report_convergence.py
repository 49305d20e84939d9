"""The figure of an auto run's rounds: drawn when a product has a measure, not otherwise."""

from __future__ import annotations

from tumble.viz.report_convergence import plot_convergence_rounds


def test_the_rounds_figure_is_drawn_only_with_measures(tmp_path):
    """Two products measured over three rounds give figures/convergence.png; a record whose
    rounds have no measure (nothing judged, or one round) draws nothing."""
    record = {
        "verdict": "converged at round 3 (800 rocks)",
        "products": {"reach_line": {"threshold": 0.1}, "design": {"threshold": 0.1}},
        "measures": [
            {"rocks": 200, "reach_line": None, "design": None},
            {"rocks": 400, "reach_line": 0.2, "design": 0.0},
            {"rocks": 800, "reach_line": 0.05, "design": 0.01},
        ],
    }
    assert plot_convergence_rounds(record, tmp_path / "convergence.png")
    assert (tmp_path / "convergence.png").stat().st_size > 1000
    record["measures"] = record["measures"][:1]
    assert not plot_convergence_rounds(record, tmp_path / "none.png")
    assert not (tmp_path / "none.png").exists()
