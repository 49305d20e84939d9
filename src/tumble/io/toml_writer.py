"""TOML written by tumble: a value (:func:`toml_value`) and a configuration
(:func:`toml_text`, the report's "configuration as used"); ``tomllib`` reads both back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np


def toml_value(value: Any) -> str:
    """One value as TOML: booleans, numbers (a NumPy scalar as its Python number; inf and nan
    as TOML writes them), arrays, inline tables; anything else as a string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return repr(value.item() if isinstance(value, np.generic) else value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value))


def toml_text(config: Mapping[str, Any], section: str = "") -> str:
    """A configuration as TOML-like text: keys, then ``[section]`` tables; a None value (not
    set: the default applies) as a comment."""
    lines = []
    for key, value in config.items():
        if isinstance(value, Mapping):
            continue
        if value is None:
            lines.append(f"# {key}: not set, the default applies")
        else:
            lines.append(f"{key} = {toml_value(value)}")
    for key, value in config.items():
        if isinstance(value, Mapping):
            name = f"{section}.{key}" if section else str(key)
            lines.append(f"\n[{name}]")
            lines.append(toml_text(value, name))
    return "\n".join(line for line in lines if line)
