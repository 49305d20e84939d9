"""Progress of long ensemble work: a tqdm bar on a terminal, nothing otherwise."""

from __future__ import annotations

import sys
from typing import Any


class _NoBar:
    """Stands in for a progress bar when none is shown."""

    def update(self, n: int) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress_bar(total: int, initial: int, progress: bool | None) -> Any:
    """tqdm on a terminal (``progress=None``), always (True) or never (False)."""
    if progress is False:
        return _NoBar()
    from tqdm import tqdm

    disable = None if progress is None else False
    if progress is None and not sys.stderr.isatty():
        return _NoBar()
    return tqdm(total=total, initial=initial, unit="rock", disable=disable, dynamic_ncols=True)
