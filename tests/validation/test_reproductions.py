"""``tumble reproduce``: both papers end to end, with the key numbers checked against the seeds'
statements (Leine et al. 2021, section 4.3; Betsch & Siebert 2009, section 5)."""

import csv
import json
import math

import numpy as np
import pytest

from tumble.cli.main import main

LEINE_FILES = [
    "fig2_major_axis",
    "fig3_difference_vector",
    "fig4_intermediate_axis",
    "lyapunov",
    "spectra",
]
LEINE_TABLES = [*LEINE_FILES, "spectral_radius_vs_dt"]
BETSCH_FIGURES = ["fig1_free_body", "fig3_heavy_top", "fig4_heavy_top_xz", "fig5_heavy_top_xz"]
BETSCH_TABLES = [
    "fig1_conservation",
    "fig1_configuration_error",
    "fig3_conservation",
    "fig3_centre_of_mass_error",
    "fig4_centre_of_mass",
    "fig5_centre_of_mass",
]


def _run(paper, out):
    assert main(["reproduce", paper, "--out", str(out)]) == 0
    return json.loads((out / "summary.json").read_text())


def _rows(path):
    return list(csv.DictReader(path.read_text().splitlines()))


def _check_files(out, figures, tables):
    png = b"\x89PNG\r\n\x1a\n"
    for name in figures:
        assert (out / f"{name}.png").read_bytes()[:8] == png, name
    for name in tables:
        assert len(_rows(out / f"{name}.csv")) >= 2, name
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["config"]["paper"] == out.name
    text = (out / "summary.txt").read_text()
    for name in figures:
        assert f"{name}.png" in text


@pytest.fixture(scope="module")
def leine(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce") / "leine2021"
    return out, _run("leine2021", out)


@pytest.fixture(scope="module")
def betsch(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce") / "betsch2009"
    return out, _run("betsch2009", out)


def test_leine2021_writes_every_figure_and_table(leine):
    out, summary = leine
    _check_files(out, LEINE_FILES, LEINE_TABLES)
    assert list(summary["figures"]) == LEINE_FILES
    assert summary["config"]["dt"] == 0.01 and summary["config"]["t_end"] == 20.0


def test_leine2021_major_axis_as_in_section_4_3(leine):
    """The explicit scheme leaves the major axis at about 10 s (here: first omega_z < Omega/2,
    between 8 and 11 s) and ends about the minor axis at omega_x = -sqrt(C/A) Omega = -16.12
    rad/s; the implicit scheme stays within 2e-3 of (0, 0, 10)."""
    out, summary = leine
    fig2 = summary["figures"]["fig2_major_axis"]["numbers"]
    explicit, implicit = fig2["explicit"], fig2["implicit"]
    assert 8.0 <= explicit["leaves_major_axis_s"] <= 11.0
    assert explicit["final_omega"][0] == pytest.approx(-16.12, abs=0.01)
    assert max(abs(w) for w in explicit["final_omega"][1:]) < 0.01
    assert fig2["minor_axis_rate_expected"] == pytest.approx(-10 * math.sqrt(13 / 5), rel=1e-14)
    assert implicit["leaves_major_axis_s"] is None
    assert implicit["max_deviation_from_steady"] < 2e-3
    # the number comes from the data written beside it
    rows = _rows(out / "fig2_major_axis.csv")
    first = next(float(r["t"]) for r in rows if float(r["explicit_omega_z"]) < 5.0)
    assert first == explicit["leaves_major_axis_s"]
    # d(t) (Fig. 3): the implicit body keeps its orientation, the explicit one turns over
    fig3 = summary["figures"]["fig3_difference_vector"]["numbers"]
    assert fig3["implicit"]["max_norm_d"] < 1e-3
    assert fig3["explicit"]["max_norm_d"] > 1.0


def test_leine2021_lyapunov_and_spectra(leine):
    _, summary = leine
    lyap = summary["figures"]["lyapunov"]["numbers"]
    assert lyap["implicit"]["max_relative_change"] < 1e-10
    assert lyap["explicit"]["max_V"] > 1e6 * lyap["explicit"]["V0"]
    spectra = summary["figures"]["spectra"]["numbers"]
    assert spectra["major"]["explicit"]["verdict"] == "unstable"
    assert spectra["major"]["implicit"]["verdict"] == "stable"
    assert spectra["minor"]["implicit"]["verdict"] == "stable"
    for scheme in ("explicit", "implicit"):
        assert spectra["intermediate"][scheme]["verdict"] == "unstable"
    for axis in ("major", "intermediate", "minor"):
        assert spectra[axis]["explicit"]["closed_form_max_difference"] < 1e-8
    # eq. 44 about the major axis: +-i Omega sqrt((C - A)(C - B) / (A B)) = +-6.928i
    root = 10 * math.sqrt((13 - 5) * (13 - 10) / (5 * 10))
    assert spectra["major"]["continuous_eigenvalues"][1] == pytest.approx([0.0, root], abs=1e-12)


def test_leine2021_intermediate_axis_flips(leine):
    """Fig. 4: the implicit scheme flips on the heteroclinic orbit as often as the exact motion,
    at the exact interval 2 K / lam (to O(dt^2)); the explicit one settles about the minor axis
    and stops flipping."""
    _, summary = leine
    fig4 = summary["figures"]["fig4_intermediate_axis"]["numbers"]
    assert fig4["implicit"]["flips"] == fig4["exact_flips"] == 4
    assert fig4["explicit"]["flips"] < 4
    assert fig4["implicit"]["flip_interval_relative_error"] < 1e-3
    assert fig4["explicit"]["final_omega"][0] == pytest.approx(
        -fig4["minor_axis_speed_of_equal_energy"], rel=1e-4
    )


def test_betsch2009_writes_every_figure_and_table(betsch):
    out, summary = betsch
    _check_files(out, BETSCH_FIGURES, BETSCH_TABLES)
    assert list(summary["figures"]) == BETSCH_FIGURES


def test_betsch2009_free_body(betsch):
    """Fig. 1: QUAT.EM keeps energy and spin at dt = 0.05; every scheme converges at order 2."""
    out, summary = betsch
    fig1 = summary["figures"]["fig1_free_body"]["numbers"]
    assert fig1["conservation"]["dt"] == 0.05
    assert fig1["conservation"]["max_energy_drift"] < 1e-10
    assert fig1["conservation"]["max_spin_drift"] < 1e-10
    errors = fig1["configuration_error"]
    assert set(errors) == {"quat_em", "quat_vi", "dir_em", "algo_c1", "implicit"}
    for name, entry in errors.items():
        assert abs(entry["fitted_order"] - 2.0) < 0.3, (name, entry)
        assert entry["error"][-1] < 1e-2
    # QUAT.VI has no solution at the largest step; it is recorded, not raised
    rows = [r for r in _rows(out / "fig1_configuration_error.csv") if r["scheme"] == "quat_vi"]
    assert rows[0]["status"] != "ok" and math.isnan(float(rows[0]["error"]))
    assert errors["quat_vi"]["error"][0] is None


def test_betsch2009_heavy_top(betsch):
    """Fig. 3-5: QUAT.EM keeps total energy and vertical spin at dt = 0.01, the centre-of-mass
    error falls at order 2, QUAT.VI fails at 0.01 and runs at 0.007 (as in the paper)."""
    out, summary = betsch
    fig3 = summary["figures"]["fig3_heavy_top"]["numbers"]
    assert fig3["conservation"]["max_energy_drift"] < 1e-10
    assert fig3["conservation"]["max_vertical_spin_drift"] < 1e-10
    for name, entry in fig3["centre_of_mass_error"].items():
        assert abs(entry["fitted_order"] - 2.0) < 0.3, (name, entry)
    fig4 = summary["figures"]["fig4_heavy_top_xz"]["numbers"]
    assert fig4["dir_em"]["max_director_energy_drift"] < 1e-10
    assert fig4["dir_em"]["error_near_t1"] < 0.1
    fig5 = summary["figures"]["fig5_heavy_top_xz"]["numbers"]
    assert fig5["quat_vi_at_dt_0.01"].startswith("failed")
    assert fig5["quat_vi"]["max_vertical_spin_drift"] < 1e-10
    assert any("QUAT.VI fails" in note for note in summary["notes"])
    # x(t), z(t) of the analytic precession: circle of radius L sin(pi/3) at height L cos(pi/3)
    rows = _rows(out / "fig4_centre_of_mass.csv")
    x_ref = np.array([float(r["x_ref"]) for r in rows])
    z_ref = np.array([float(r["z_ref"]) for r in rows])
    assert x_ref.max() == pytest.approx(0.075 * math.sin(math.pi / 3), rel=1e-3)
    np.testing.assert_allclose(z_ref, 0.075 * 0.5, rtol=1e-14)


def test_unknown_paper_and_bad_out_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "nobody2000"])
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["reproduce", "leine2021", "--out", str(blocker)]) == 2
    assert "not a directory" in capsys.readouterr().err
