"""The plugin's command module (``qgis/tumble_qgis/command.py``), which imports nothing of QGIS:
progress lines, versions, a missing or too old tumble, and a cancel that interrupts the command
as Ctrl-C would."""

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "qgis" / "tumble_qgis"


def _load():
    spec = importlib.util.spec_from_file_location("tumble_qgis_command", PLUGIN / "command.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


command = _load()


def _script(tmp_path, name, body):
    """An executable ``name`` in ``tmp_path`` running ``body`` with this Python."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def test_progress_lines_give_the_percentage():
    assert command.progress_of("rocks 120/200 (60 %), 2.31 M rock-steps/s, about 4 s left") == 60
    assert command.progress_of("rocks 7/7 (100 %)") == 100
    assert command.progress_of("warning: 10 % of the rocks (2) left the DEM") is None


def test_versions_are_read_and_compared():
    assert command.parse_version("tumble 0.1.0\n") == (0, 1, 0)
    assert command.parse_version("tumble 1.2") == (1, 2, 0)
    assert command.parse_version("something else") is None


def test_a_missing_tumble_names_the_install_command(tmp_path):
    with pytest.raises(command.TumbleNotFound, match=r"not found on PATH; .*pip install"):
        command.find_tumble(None, {"PATH": str(tmp_path)})
    with pytest.raises(command.TumbleNotFound, match=r"TUMBLE_COMMAND, /no/tumble, does not"):
        command.find_tumble(None, {"TUMBLE_COMMAND": "/no/tumble", "PATH": ""})
    # the provider's setting comes before the environment
    found = _script(tmp_path, "tumble", "print('tumble 0.1.0')\n")
    assert command.find_tumble(str(found), {"TUMBLE_COMMAND": "/no/tumble"}) == str(found)


def test_a_too_old_tumble_names_the_install_command(tmp_path):
    old = _script(tmp_path, "tumble", "print('tumble 0.0.9')\n")
    with pytest.raises(command.TumbleNotFound, match=r"is tumble 0\.0\.9, older than .*pip"):
        command.check_tumble(str(old))
    new = _script(tmp_path, "tumble2", "print('tumble 0.1.0')\n")
    assert command.check_tumble(str(new)) == (0, 1, 0)


def test_the_child_does_not_inherit_qgis_python():
    env = command.child_environment({"PYTHONHOME": "/usr", "PYTHONPATH": "/q", "PATH": "/bin"})
    assert "PYTHONHOME" not in env and "PYTHONPATH" not in env and env["PATH"] == "/bin"


def test_lines_stream_and_the_error_sentence_is_kept(tmp_path):
    failing = _script(
        tmp_path,
        "fails",
        """\
        import sys
        print("rocks 1/2 (50 %)", file=sys.stderr, flush=True)
        print("tumble rockfall run: error: the DEM has no CRS; give --dem-crs", file=sys.stderr)
        sys.exit(2)
        """,
    )
    lines = []
    outcome = command.run_streaming([str(failing)], lines.append, lambda: False)
    assert lines[0] == "rocks 1/2 (50 %)"
    assert outcome.returncode == 2 and not outcome.cancelled
    assert outcome.error == "the DEM has no CRS; give --dem-crs"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_cancel_interrupts_as_ctrl_c(tmp_path):
    """A cancel sends SIGINT: the command ends by its own KeyboardInterrupt handler (tumble
    writes its finished chunks and exits 130), well before the grace period."""
    slow = _script(
        tmp_path,
        "slow",
        """\
        import signal, sys, time
        # as tumble's main does: Ctrl-C's handler even if started with SIGINT ignored
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            print("rocks 0/10 (0 %)", flush=True)
            time.sleep(60)
        except KeyboardInterrupt:
            print("tumble rockfall run: interrupted", flush=True)
            sys.exit(130)
        """,
    )
    lines = []
    outcome = command.run_streaming(
        [str(slow)], lines.append, lambda: bool(lines), poll=0.05, grace=30
    )
    assert outcome.cancelled and outcome.returncode == command.INTERRUPTED
    assert lines[-1] == "tumble rockfall run: interrupted"
