"""Browser settings shared by the web tests: Debian's Chromium (never a downloaded browser) with
software WebGL. Without that browser the browser tests are skipped with a message, unless
``TUMBLE_REQUIRE_BROWSER=1``, where they fail."""

from __future__ import annotations

import os
from pathlib import Path

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
