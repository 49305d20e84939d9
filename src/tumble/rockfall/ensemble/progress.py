"""Progress of long ensemble work, told honestly: rocks done, rock-steps per second, time left.

:class:`Progress` draws a tqdm bar on a terminal; elsewhere (a log file, CI) it writes a plain
line at most every ``every`` seconds and one at the end; with ``mode="off"`` nothing. The rate
counts only the rocks simulated in this session, so a resumed run does not claim the speed of
rocks it did not compute.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Literal, TextIO

Mode = Literal["auto", "bar", "lines", "off"]


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """Progress over ``total`` rocks of which ``initial`` are done already (a resumed run).

    ``mode``: ``"auto"`` (a bar on a terminal, lines otherwise), ``"bar"``, ``"lines"`` or
    ``"off"``. :meth:`update` takes the rocks and rock-steps just finished; :meth:`note` writes a
    line (e.g. that kernels compile) without breaking the bar.
    """

    def __init__(
        self,
        total: int,
        initial: int = 0,
        mode: Mode = "auto",
        *,
        stream: TextIO | None = None,
        every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        label: str = "rocks",
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        if mode == "auto":
            mode = "bar" if self.stream.isatty() else "lines"
        self.mode = mode
        self.total = total
        self.done = initial
        self.initial = initial
        self.steps = 0
        self.every = every
        self.clock = clock
        self.label = label
        self.start = clock()
        self.last_line = self.start
        self.bar: Any = None
        if mode == "bar":
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                initial=initial,
                desc=None if label == "rocks" else label,
                unit="rock",
                dynamic_ncols=True,
                file=self.stream,
                smoothing=0.1,
            )

    def rate(self) -> float:
        """Rock-steps per second of this session so far."""
        elapsed = self.clock() - self.start
        return self.steps / elapsed if elapsed > 0 else 0.0

    def eta(self) -> float | None:
        """Seconds left at this session's pace, None before the first finished rock."""
        now = self.done - self.initial
        if now <= 0:
            return None
        return (self.clock() - self.start) * (self.total - self.done) / now

    def line(self) -> str:
        eta = self.eta()
        percent = 100.0 * self.done / self.total if self.total else 100.0
        text = f"{self.label} {self.done}/{self.total} ({percent:.0f} %)"
        if self.steps:
            text += f", {self.rate() / 1e6:.2f} M rock-steps/s"
        if self.done < self.total and eta is not None:
            text += f", about {_duration(eta)} left"
        return text

    def update(self, rocks: int, steps: int = 0) -> None:
        self.done += rocks
        self.steps += steps
        if self.bar is not None:
            if self.steps:
                self.bar.set_postfix_str(f"{self.rate() / 1e6:.2f} M rock-steps/s", refresh=False)
            self.bar.update(rocks)
        elif self.mode == "lines":
            now = self.clock()
            if now - self.last_line >= self.every and self.done < self.total:
                self.last_line = now
                print(self.line(), file=self.stream, flush=True)

    def grow(self, rocks: int) -> None:
        """``rocks`` more to do than the total said (work that a result decided on)."""
        self.total += rocks
        if self.bar is not None:
            self.bar.total = self.total
            self.bar.refresh()

    def note(self, text: str) -> None:
        if self.mode == "off":
            return
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.mode == "lines" and self.done > self.initial:
            print(self.line(), file=self.stream, flush=True)
            self.mode = "off"

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_mode(progress: bool | str | None) -> Mode:
    """The :class:`Progress` mode of the ``progress`` argument of the ensemble API: None ->
    ``"auto"``, True -> ``"bar"``, False -> ``"off"``, or a mode name."""
    if progress is None:
        return "auto"
    if progress is True:
        return "bar"
    if progress is False:
        return "off"
    modes: dict[str, Mode] = {"auto": "auto", "bar": "bar", "lines": "lines", "off": "off"}
    if isinstance(progress, str) and progress in modes:
        return modes[progress]
    raise ValueError(f"progress must be None, a bool or auto/bar/lines/off, got {progress!r}")
