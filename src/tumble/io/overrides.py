"""The plain-dict side of a configuration, before its schema: a TOML file read (:func:`read_toml`),
``key=value`` overrides in TOML syntax applied with dotted keys (:func:`apply_overrides`,
:func:`set_key`; an inline table sets its keys into the table there), the keys they set
(:func:`override_keys`), and a nested table flattened to dotted keys (:func:`flatten_keys`)."""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tumble.errors import ConfigError


def read_toml(path: str | os.PathLike) -> dict:
    """The TOML document at ``path`` as a dict; :class:`~tumble.errors.ConfigError` (without a
    key) for a missing or malformed file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"config file {path}: {err}") from None


def parse_value(text: str) -> Any:
    """A TOML value (number, boolean, string, array, inline table) or else the bare text."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def parse_override(item: str) -> tuple[str, Any]:
    """The dotted key and the value of one ``dotted.key=value`` override;
    :class:`~tumble.errors.ConfigError` for one that is not."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key or any(not part for part in key.split(".")):
        raise ConfigError(f"override {item!r} must look like section.key=value")
    value = parse_value(text.strip())
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"override {item!r}: the value must be finite", key)
    return key, value


def override_keys(overrides: list[str]) -> list[str]:
    """The dotted keys ``overrides`` set: an inline table names each of its keys
    (``rock={shape = "eota111"}`` sets ``rock.shape``)."""
    keys: list[str] = []
    for item in overrides:
        key, value = parse_override(item)
        keys += list(flatten_keys(value, f"{key}.")) if isinstance(value, dict) else [key]
    return keys


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """A copy of ``data`` with every ``dotted.key=value`` of ``overrides`` set;
    :class:`~tumble.errors.ConfigError` for an override that is not one. An inline table sets
    its keys into the table already there, as dotted keys do: ``rock={shape = "eota111"}``
    sets ``rock.shape`` and keeps ``rock.volume`` (nothing given before is dropped)."""
    out = deep_copy(data)
    for item in overrides:
        key, value = parse_override(item)
        *sections, last = key.split(".")
        node = out
        for part in sections:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"override {item!r}: {part!r} is a value, not a section", key)
            node = child
        if isinstance(value, dict) and isinstance(node.get(last), dict):
            _merge(node[last], value)
        else:
            node[last] = value
    return out


def _merge(table: dict, value: dict) -> None:
    """Set every key of ``value`` in ``table``, into its sub-tables where both have one."""
    for key, item in value.items():
        if isinstance(item, dict) and isinstance(table.get(key), dict):
            _merge(table[key], item)
        else:
            table[key] = _copy_value(item)


def set_key(data: dict, key: str, value: Any) -> dict:
    """A copy of ``data`` with ``dotted.key`` set to ``value`` (sections created as needed)."""
    out = deep_copy(data)
    parts = key.split(".")
    node = out
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def flatten_keys(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested tables as one level of dotted keys: ``{"release": {"height": 1.5}}`` ->
    ``{"release.height": 1.5}`` (the keys of overrides)."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten_keys(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def deep_copy(data: dict) -> dict:
    """A copy of nested tables and lists, the leaves shared."""
    return {k: _copy_value(v) for k, v in data.items()}


def _copy_value(value: Any) -> Any:
    if isinstance(value, dict):
        return deep_copy(value)
    if isinstance(value, list):
        return [_copy_value(v) for v in value]
    return value
