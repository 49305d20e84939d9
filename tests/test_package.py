"""The package as a whole: the engine imports without the optional extras, and a command that
needs a missing extra says which ``pip install`` brings it."""

import subprocess
import sys
from pathlib import Path

import pytest

from tumble._check import MissingExtra, require
from tumble.cli.main import main

EXTRAS = ("fastapi", "uvicorn", "starlette", "dask", "distributed")


def test_the_engine_does_not_import_the_extras():
    """``import tumble.rockfall`` (and the ensemble driver, the configuration glue, the
    validation layer) loads none of the web or cluster packages, in a fresh interpreter."""
    code = (
        "import sys, tumble.rockfall, tumble.rockfall.ensemble, tumble.rockfall.site.from_config, "
        "tumble.validation, tumble.stability, tumble.freerot; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {EXTRAS!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_a_missing_extra_names_its_pip_install():
    with pytest.raises(MissingExtra, match=r"pip install 'tumble\[cluster\]'"):
        require("tumble_no_such_package", "cluster", "--dask")


def test_cli_reports_a_missing_extra_as_an_error(monkeypatch, capsys):
    """With the web packages hidden, ``tumble serve`` exits 2 with the install command."""
    monkeypatch.setitem(sys.modules, "fastapi", None)
    assert main(["serve"]) == 2
    assert "pip install 'tumble[web]'" in capsys.readouterr().err


def test_the_architecture_page_stays_a_page():
    """``docs/architecture.md`` is a map a newcomer reads at once: at most 150 lines."""
    page = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
    assert len(page.read_text(encoding="utf-8").splitlines()) <= 150
