"""A run's report printed to A4 in Debian's Chromium (Playwright): at the width of an A4 page
between the stylesheet's margins, under the print media, no element reaches beyond the page
(nothing is clipped or cut at the right edge) and the page does not scroll sideways."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

#: the printable width of an A4 page between the margins of the report's @page rule (12 mm
#: each side), CSS pixels (96 per inch)
A4_PRINT_WIDTH_PX = int((210.0 - 2 * 12.0) / 25.4 * 96.0)

OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.right > width + 0.5) {
      wide.push(element.tagName + ' ' + Math.round(box.right));
    }
  }
  return {width, scroll: document.documentElement.scrollWidth, wide};
}"""


def _run_report_module():
    path = Path(__file__).parents[1] / "viz" / "test_run_report.py"
    spec = importlib.util.spec_from_file_location("run_report_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    """The report of the fake run of the report tests: warnings, barriers with intervals,
    sources, classes, maps, the configuration and the provenance."""
    cases = _run_report_module()
    folder = tmp_path_factory.mktemp("report")
    _, _, summary = cases.fake_run(cases.swiss_slope())
    path, _, _ = cases.report(folder, summary)
    return path


def test_report_fits_an_a4_page_when_printed(page, report_page):
    page.set_viewport_size({"width": A4_PRINT_WIDTH_PX, "height": 1000})
    page.emulate_media(media="print")
    page.goto(report_page.as_uri())
    layout = page.evaluate(OVERFLOW)
    assert layout["width"] == A4_PRINT_WIDTH_PX
    assert layout["wide"] == [], layout["wide"][:10]
    assert layout["scroll"] <= layout["width"]
    pdf = page.pdf(prefer_css_page_size=True)
    assert pdf.startswith(b"%PDF")
