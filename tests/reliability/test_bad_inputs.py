"""Every bad input of ``cases.py`` is refused with a message naming it: no traceback, no silent
result, nothing written (command line in-process, Python API, web server)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


def _load_cases():
    path = Path(__file__).with_name("cases.py")
    spec = importlib.util.spec_from_file_location("reliability_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cases = _load_cases()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reliability")
    cases.make_files(folder)
    return folder


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("fastapi")
    with cases.web_client() as c:
        yield c


def _ids(table):
    return [c.name for c in table]


@pytest.mark.parametrize("case", cases.CLI_CASES, ids=_ids(cases.CLI_CASES))
def test_cli_refuses_clearly(case, root):
    outcome = cases.run_cli(case, root)
    assert outcome.kind == "clear", outcome.detail


@pytest.mark.parametrize("case", cases.API_CASES, ids=_ids(cases.API_CASES))
def test_api_refuses_clearly(case, root):
    outcome = cases.run_api(case, root)
    assert outcome.kind == "clear", outcome.detail


@pytest.mark.parametrize("case", cases.WEB_CASES, ids=_ids(cases.WEB_CASES))
def test_web_refuses_clearly(case, client):
    outcome = cases.run_web(case, client)
    assert outcome.kind == "clear", outcome.detail


def test_a_silent_result_is_not_counted_as_clear(root):
    """The classification can fail: a valid input is 'silent' (accepted), a message without
    the word 'unclear'."""
    ok = cases.CliCase("valid", ("spin", "--help"), "x")
    assert cases.run_cli(ok, root).kind == "silent"
    vague = cases.ApiCase("vague", lambda r: cases._options(dt=-1.0), "gravity")
    assert cases.run_api(vague, root).kind == "unclear"
