"""tumble's main takes Ctrl-C back when it was started with SIGINT ignored (nohup, a GUI's
launcher), so that an interrupt such as the QGIS plugin's cancel ends a run cleanly."""

from __future__ import annotations

import signal

import pytest

from tumble.cli.main import main


def test_main_restores_the_interrupt_handler_of_a_process_that_ignored_it():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(SystemExit):
            main(["--help"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
