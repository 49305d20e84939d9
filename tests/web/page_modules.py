"""The JavaScript modules a page loads, found as a browser finds them: the page's module scripts,
then every static import, resolved through the page's importmap. Used on the files of the
checkout (``test_vendor.py``) and over HTTP from an installed package (``tests/test_wheel.py``);
loaded by path (the tests are not a package)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

#: a static import or re-export at the start of a line: ``import ... from "x"``, ``import "x"``,
#: ``export ... from "x"`` (imports inside comments start with `` * `` or ``//`` and are skipped)
IMPORT = re.compile(r"""^\s*(?:import|export)\s+(?:[^;'"]*?\sfrom\s*)?["']([^"']+)["']""", re.M)
IMPORTMAP = re.compile(r'<script type="importmap">(.*?)</script>', re.S)
MODULE_SCRIPT = re.compile(r'<script type="module" src="([^"]+)"')


def resolve(specifier: str, base: str, imports: dict[str, str]) -> str:
    """The URL path of ``specifier`` imported by the module at URL path ``base`` (importmap
    rules: relative to ``base``, else an exact key, else the longest key ending in ``/`` that
    prefixes it)."""
    if specifier.startswith(("./", "../")):
        parts = base.rsplit("/", 1)[0].split("/")
        for part in specifier.split("/"):
            if part == "..":
                parts.pop()
            elif part != ".":
                parts.append(part)
        return "/".join(parts)
    if specifier.startswith("/"):
        return specifier
    if specifier in imports:
        return imports[specifier]
    prefixes = [key for key in imports if key.endswith("/") and specifier.startswith(key)]
    if not prefixes:
        raise ValueError(f"{base} imports {specifier!r}, which the importmap does not map")
    key = max(prefixes, key=len)
    return imports[key] + specifier.removeprefix(key)


def loaded_modules(html: str, read: Callable[[str], str]) -> set[str]:
    """Every module URL path the page ``html`` loads; ``read(url)`` gives a module's text."""
    found = IMPORTMAP.search(html)
    imports = json.loads(found.group(1))["imports"] if found else {}
    todo = MODULE_SCRIPT.findall(html)
    seen: set[str] = set()
    while todo:
        url = todo.pop()
        if url not in seen:
            seen.add(url)
            todo += [resolve(spec, url, imports) for spec in IMPORT.findall(read(url))]
    return seen
