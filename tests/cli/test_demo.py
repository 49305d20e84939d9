"""``tumble demo``'s rockfall part and ``tumble rockfall run`` on the built-in slope: the first
screen says what the slope40 ensembles reproduce and why their reach differs from field slopes,
and gives no field-reach warning, which belongs to runs on real terrain."""

import argparse
import json

import tumble.viz.report
from tumble.cli.demo import rockfall_report
from tumble.cli.main import main


def test_the_demo_says_what_its_ensembles_reproduce_and_no_field_reach_warning(
    tmp_path, capsys, monkeypatch
):
    """Both slope40 ensembles of the demo (10 rocks each, seed 1; the demo's page, which needs
    its free-rotation part, is not written): the rocks roll out on the flat below 27.5 degrees
    (their records count them), the screen names the reproduction once, before the two summary
    lines, and warns of no field reach."""
    monkeypatch.setattr(tumble.viz.report, "write_report", lambda *args: None)
    rockfall_report(argparse.Namespace(out=str(tmp_path), rocks=10, seed=1))
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    notes = [k for k, line in enumerate(lines) if line.startswith("note: slope40 reproduces")]
    assert len(notes) == 1
    assert "Leine et al. 2021, section 6" in lines[notes[0]]
    assert "belong to runs on real terrain" in lines[notes[0]]
    ends = [k for k, line in enumerate(lines) if line.startswith("10 rocks (")]
    assert len(ends) == 2 and notes[0] < ends[0]
    assert "energy-line angle of 27.5" not in captured.err
    assert "run further than observed rockfalls" not in captured.err
    for scheme in ("explicit", "implicit"):
        summary = json.loads((tmp_path / f"rockfall_{scheme}" / "summary.json").read_text())
        assert summary["energy_line"]["rocks_at_rest_below_lowest_observed"] > 0
        assert summary["energy_line"]["field_comparison"] is False


def test_a_run_on_the_default_terrain_names_the_reproduction(tmp_path, capsys):
    """``tumble rockfall run`` without a DEM runs on slope40: the same note, no field warning."""
    out = tmp_path / "run"
    assert (
        main(["rockfall", "run", "--rocks", "5", "--no-figures", "--quiet", "--out", str(out)]) == 0
    )
    captured = capsys.readouterr()
    assert "note: slope40 reproduces the ensembles of Leine et al. 2021" in captured.out
    assert "energy-line angle of 27.5" not in captured.err
