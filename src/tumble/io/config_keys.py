"""The configuration key a pydantic validation error is about, and one message naming every
bad key: dotted keys (``soil.classes.1.mu_min``, ``barrier.0.file``) without the labels
pydantic adds for the members of a union or the key of a table, and for an unknown key the keys
allowed where it stands and the sections that have a key of its name (``threads``: did you mean
``run.threads``?)."""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ValidationError


def _key_names(model: type[BaseModel], loc: tuple) -> list[str]:
    """Allowed keys at the level ``loc`` (without its last element) of the schema; a list of
    tables (``[[barrier]]``) counts as its table."""
    current: Any = model
    for part in loc[:-1]:
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        current = fields[part].annotation
        if typing.get_origin(current) is list:
            current = typing.get_args(current)[0]
    fields = getattr(current, "model_fields", None)
    return sorted(fields) if fields else []


def key_homes(model: type[BaseModel], name: str, prefix: str = "", depth: int = 3) -> list[str]:
    """The dotted keys of the schema ``model`` whose last part is ``name``, sections up to
    ``depth`` levels deep (a list of tables counts as its table: ``barrier.file``)."""
    homes: list[str] = []
    for field, info in model.model_fields.items():
        key = f"{prefix}{field}"
        if field == name:
            homes.append(key)
        if depth <= 1:
            continue
        for t in _types(info.annotation):
            if typing.get_origin(t) is list:
                t = next(iter(_types(typing.get_args(t)[0])), None)
            if isinstance(t, type) and issubclass(t, BaseModel):
                homes += key_homes(t, name, f"{key}.", depth - 1)
    return sorted(dict.fromkeys(homes))


def _types(annotation: Any) -> list[Any]:
    """The types an annotation allows: the members of a union (None left out), each without its
    ``Annotated`` metadata."""
    if typing.get_origin(annotation) is Annotated:
        return _types(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [t for member in typing.get_args(annotation) for t in _types(member)]
    return [] if annotation is type(None) else [annotation]


def config_key(loc: Sequence[str | int], root: type[BaseModel]) -> str:
    """The dotted configuration key of a pydantic error location ``loc``: its field names, list
    and array indices and table keys (``soil.classes.1.mu_min``), without the labels pydantic
    adds for the members of a union (``constrained-float``, ``str``, ``SoilClassConfig``) and
    for the key of a table (``[key]``)."""
    keys: list[str] = []
    allowed: list[Any] = [root]
    for part in loc:
        origins = {typing.get_origin(t) for t in allowed}
        models = [t for t in allowed if isinstance(t, type) and issubclass(t, BaseModel)]
        owner = next((m for m in models if part in m.model_fields), None)
        if owner is not None:  # a field
            keys.append(str(part))
            allowed = _types(owner.model_fields[str(part)].annotation)
        elif isinstance(part, int) and origins & {list, tuple}:  # an element of an array
            keys.append(str(part))
            allowed = [
                t
                for a in allowed
                if typing.get_origin(a) in (list, tuple)
                for t in _types(_element(a, part))
            ]
        elif dict in origins:  # the key of a table ([soil.classes]): its values follow
            keys.append(str(part))
            allowed = [t for a in allowed if typing.get_origin(a) is dict for t in _types(a)]
            allowed = [t for a in allowed for t in _types(typing.get_args(a)[1])] or allowed
        else:  # pydantic's label of a union member: the member it names, if a table
            named = [m for m in models if m.__name__ in str(part)]
            allowed = named or allowed
    return ".".join(keys)


def _element(array: Any, index: int) -> Any:
    """The type of element ``index`` of a ``list[...]`` or ``tuple[...]`` annotation."""
    args = typing.get_args(array)
    if typing.get_origin(array) is list or (len(args) == 2 and args[1] is Ellipsis):
        return args[0]
    return args[index] if index < len(args) else Any


def error_key(error: Any, root: type[BaseModel]) -> str:
    """The configuration key of one pydantic error of the schema ``root`` (an unknown key: the
    key itself)."""
    loc = error["loc"]
    if error["type"] == "extra_forbidden" and loc:
        return ".".join(k for k in (config_key(loc[:-1], root), str(loc[-1])) if k)
    return config_key(loc, root)


def error_message(err: ValidationError, root: type[BaseModel]) -> str:
    """One message for every error of a validation of the schema ``root``: each names its
    key, an unknown key with the keys allowed where it stands."""
    lines: list[str] = []
    errors = err.errors()
    # a key whose value fails every member of a union (a number or a file name): only the
    # members of the value's own kind speak (a number's bounds, not "should be a string")
    by_key: dict[str, list[Any]] = {}
    for e in errors:
        by_key.setdefault(error_key(e, root), []).append(e)
    kept = []
    for e in errors:
        value = e.get("input")
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if len(by_key[error_key(e, root)]) > 1 and number and e["type"] == "string_type":
            continue
        kept.append(e)
    for e in kept:
        loc = tuple(p for p in e["loc"] if isinstance(p, str))
        key = error_key(e, root)
        if e["type"] == "extra_forbidden":
            allowed = _key_names(root, loc)
            where = ".".join(loc[:-1]) or "the top level"
            homes = [h for h in key_homes(root, str(loc[-1])) if h != key]
            hint = f"did you mean {' or '.join(homes)}? " if homes else ""
            lines.append(
                f"unknown key {key!r}"
                + (f" ({hint}allowed in {where}: {', '.join(allowed)})" if allowed else "")
            )
        else:
            lines.append(f"{key}: {e['msg']} (got {e.get('input')!r})")
    return "invalid configuration: " + "; ".join(dict.fromkeys(lines))
