"""Browser settings shared by the web tests: Debian's Chromium (never a downloaded browser) with
software WebGL. Without that browser the browser tests are skipped with a message, unless
``TUMBLE_REQUIRE_BROWSER=1``, where they fail. ``page_watch``: what a page logs as errors and
every request it sends off 127.0.0.1 (refused)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

CHROMIUM = Path("/usr/bin/chromium")
REQUIRE_BROWSER = os.environ.get("TUMBLE_REQUIRE_BROWSER", "") == "1"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    # WebGL without a GPU: ANGLE on the SwiftShader software rasteriser
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not CHROMIUM.exists():
        message = (
            f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium); "
            "skipped"
        )
        if REQUIRE_BROWSER:
            pytest.fail(message.replace("skipped", "required by TUMBLE_REQUIRE_BROWSER=1"))
        pytest.skip(message)
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": CHROMIUM_ARGS,
        "headless": True,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 800}}


class PageWatch:
    """Console errors, page errors and requests leaving 127.0.0.1 (aborted), collected for one
    page."""

    def __init__(self, context, page):
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.external: list[str] = []
        context.route("**/*", self._route)
        page.on(
            "console",
            lambda m: self.console_errors.append(m.text) if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))

    @property
    def errors(self) -> list[str]:
        return self.console_errors + self.page_errors

    def _route(self, route):
        url = route.request.url
        if urlparse(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            self.external.append(url)
            route.abort()


@pytest.fixture
def page_watch(context, page):
    """A :class:`PageWatch` on the test's page, set up before it loads anything."""
    return PageWatch(context, page)
