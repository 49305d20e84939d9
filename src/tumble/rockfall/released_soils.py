"""The released soil presets and their numbers, fixed: ``released_soils.json`` beside this module.

A released preset keeps its numbers forever (DESIGN.md, *Soil presets and calibrations*): a
study that names ``medium`` must get the soil it got when it was made, so a changed model is a
new name and the old one stays available. The file holds, for every released name, what
:func:`tumble.rockfall.soil_values.resolved_values` gives: every field's value, and the
equivalent sets and the spread the rocks draw from. :func:`check_released` compares the
catalogue with it (``tests/rockfall/test_released_soils.py`` runs it); :func:`add_released`
records a new name and refuses to write over a released one::

    python -m tumble.rockfall.released_soils --add NAME [NAME ...]
    python -m tumble.rockfall.released_soils --check

A soil field added after a release must default to the law as it was: its value 0 switches it
off, so a released preset that does not give it resolves to 0 and the file, written without
it, still holds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tumble.errors import TumbleError
from tumble.io.results import write_atomic
from tumble.rockfall.soil import CATALOGUE, FIELDS
from tumble.rockfall.soil_values import resolved_values

#: the file of the released presets' numbers
RELEASED_FILE = Path(__file__).with_name("released_soils.json")
#: the value of a soil field that leaves the law as it was before the field existed
OFF = 0.0


class ReleasedPresetError(TumbleError, ValueError):
    """A released preset would change: its name is recorded already, or it is not in the
    catalogue."""


def read_released(path: str | os.PathLike = RELEASED_FILE) -> dict[str, dict[str, Any]]:
    """The released presets, name -> the record of
    :func:`tumble.rockfall.soil_values.resolved_values`."""
    return dict(json.loads(Path(path).read_text(encoding="utf-8")))


def preset_differences(name: str, released: Mapping[str, Any]) -> list[str]:
    """How the catalogue's preset ``name`` differs from its ``released`` record, one line per
    number (empty: unchanged). A field the record lacks must resolve to :data:`OFF`: it was
    added after the release, and its default is the law as it was."""
    if name not in CATALOGUE:
        return [f"{name}: released, but no longer in the catalogue (a released name must resolve)"]
    now = resolved_values(name)
    lines = _values_differences(f"{name}", released.get("values", {}), now["values"])
    sets_then, sets_now = released.get("sets", []), now.get("sets", [])
    if len(sets_then) != len(sets_now):
        lines.append(f"{name}: {len(sets_then)} equivalent sets released, {len(sets_now)} now")
    else:
        for k, (then, values) in enumerate(zip(sets_then, sets_now, strict=True)):
            lines += _values_differences(f"{name}.sets.{k}", then, values)
    for key in ("set_stride", "set_joint"):
        if released.get(key) != now.get(key):
            lines.append(f"{name}.{key}: {released.get(key)} released, {now.get(key)} now")
    spread_then = {f: list(b) for f, b in (released.get("spread") or {}).items()}
    spread_now = now.get("spread") or {}
    if spread_then != spread_now:
        lines.append(f"{name}.spread: {spread_then} released, {spread_now} now")
    return lines


def _values_differences(where: str, then: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    lines = []
    for field in then:
        if field not in FIELDS:
            lines.append(f"{where}.{field}: released, but no longer a soil field")
        elif now[field] != then[field]:
            lines.append(f"{where}.{field}: {then[field]!r} released, {now[field]!r} now")
    for field in FIELDS:
        if field not in then and now[field] != OFF:
            lines.append(
                f"{where}.{field}: a field added after the release must default to the law as "
                f"it was ({OFF:g}), got {now[field]!r}"
            )
    return lines


def check_released(path: str | os.PathLike = RELEASED_FILE) -> list[str]:
    """Every difference between the catalogue and the released presets of ``path``: a changed
    number, a released name gone; presets released since are not in the file and pass."""
    lines: list[str] = []
    for name, record in read_released(path).items():
        lines += preset_differences(name, record)
    return lines


def add_released(names: Iterable[str], path: str | os.PathLike = RELEASED_FILE) -> list[str]:
    """Record the presets ``names`` of the catalogue as released in ``path`` (created if
    missing) and return them; :class:`ReleasedPresetError`, and nothing written, if a name is
    recorded already (its numbers are fixed: a changed model is a new name) or not in the
    catalogue."""
    path = Path(path)
    released = read_released(path) if path.is_file() else {}
    names = list(dict.fromkeys(names))
    again = [n for n in names if n in released]
    if again:
        raise ReleasedPresetError(
            f"soil preset {', '.join(map(repr, again))} is released already and keeps its "
            "numbers: give a changed model a new name"
        )
    unknown = [n for n in names if n not in CATALOGUE]
    if unknown:
        raise ReleasedPresetError(
            f"soil preset {', '.join(map(repr, unknown))} is not in the catalogue "
            "(tumble.rockfall.soil.CATALOGUE)"
        )
    released.update({name: resolved_values(name) for name in names})
    text = json.dumps(released, indent=2) + "\n"
    write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tumble.rockfall.released_soils",
        description="Record new soil presets as released, or check the released ones.",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--add", nargs="+", metavar="NAME", help="presets to record")
    action.add_argument("--check", action="store_true", help="compare the catalogue with them")
    parser.add_argument("--file", default=str(RELEASED_FILE), help="the file of released presets")
    args = parser.parse_args(argv)
    if args.check:
        lines = check_released(args.file)
        for line in lines:
            print(line)
        print(f"{len(lines)} differences from {args.file}")
        return 1 if lines else 0
    try:
        added = add_released(args.add, args.file)
    except ReleasedPresetError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"recorded {', '.join(added)} in {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
