"""What a release place offers the release that starts rocks on it, and how much of it lies
off the DEM.

:class:`Areas` is the structure :class:`tumble.rockfall.release.Release` needs of release areas
(names, the split of the rocks, draws of a place, clipping, footprint):
:class:`tumble.rockfall.site.areas.ReleaseAreas`, read from a GIS file or a source raster by the
site inputs above the engine, is one. Release placement is thus below the site inputs and imports
nothing of them. :class:`Clip` holds the share of a line, polygon or area off the DEM's valid
cells, with the run's warning and the refusal of a place with nothing on the DEM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain


class Areas(Protocol):
    """Release areas as :class:`tumble.rockfall.release.Release` uses them (module docstring)."""

    @property
    def names(self) -> tuple[str, ...]:
        """The areas' names, in the order of their rocks."""
        ...

    def source_of(self, k: int | np.ndarray) -> np.ndarray:
        """The area index of rock(s) ``k``."""
        ...

    def place(
        self,
        rng: np.random.Generator,
        k: int,
        terrain: Terrain | None = None,
        again: bool = False,
    ) -> tuple[float, float]:
        """The start (x, y) of rock ``k`` drawn from its stream ``rng``; ``again``: drawn anew
        for a rock that did not fit at its first place (uniform over its area)."""
        ...

    def first_places(
        self, uniforms: np.ndarray, rocks: np.ndarray, terrain: Terrain | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The starts of ``rocks`` (n,) as :meth:`place` draws them from the first uniforms
        of their streams ``uniforms`` (n, m), for all at once: ``(xy (n, 2), used (n,))``, the
        uniforms each place took, -1 for a rock left to :meth:`place`
        (:mod:`tumble.rockfall.release.first_places`)."""
        ...

    def clips(self, terrain: Terrain) -> tuple[Clip, ...]:
        """The share of each area off ``terrain``."""
        ...

    def footprint(self) -> tuple[np.ndarray, np.ndarray]:
        """Where the rocks start, as weighted points ``(points (k, 2), weights (k,))``."""
        ...


@dataclass(frozen=True)
class Clip:
    """How much of a release place lies off the DEM: ``nodata_share`` in its nodata areas
    (inside its rectangle), ``outside_share`` beyond it, as shares of the place's ``measure``
    (``"area"`` of a polygon, ``"length"`` of a line, ``"weight"`` of a raster source's
    cells). ``name`` is the place as messages name it (``release area 'north'``,
    ``release.polygon``)."""

    name: str
    nodata_share: float
    outside_share: float
    measure: str = "area"

    @classmethod
    def of(cls, name: str, whole: float, inside: float, on: float, measure: str = "area") -> Clip:
        """From the place's whole measure, its part on the DEM's rectangle and its part on the
        DEM's valid cells (:func:`tumble.rockfall.release.polygons.on_cells`)."""
        if not whole > 0.0:
            return cls(name, 0.0, 0.0, measure)
        outside = max(0.0, 1.0 - inside / whole)
        nodata = max(0.0, (inside - on) / whole)
        # round-off of the intersections: a place entirely on the DEM is not clipped at all
        outside = 0.0 if outside < 1e-12 else outside
        nodata = 0.0 if nodata < 1e-12 else nodata
        return cls(name, nodata, outside, measure)

    @property
    def share(self) -> float:
        """The share of the place off the DEM."""
        return min(1.0, self.nodata_share + self.outside_share)

    @property
    def label(self) -> str:
        return self.name if self.name.startswith("release.") else f"release area {self.name!r}"

    def check(self, terrain: Terrain) -> None:
        """ValueError when nothing of the place is left on the DEM (no place where rocks fit),
        saying whether it lies in a nodata area of the DEM or outside it."""
        if self.share < 1.0 - 1e-12:
            return
        if self.outside_share == 0.0:
            where = "lies entirely in a nodata area of the DEM"
        elif self.nodata_share == 0.0:
            where = f"lies outside the DEM, which covers {terrain.extent_text}"
        else:
            where = (
                f"lies in a nodata area of the DEM ({_percent(self.nodata_share)} of it) and "
                f"outside the DEM (the rest; it covers {terrain.extent_text})"
            )
        raise ValueError(f"{self.label} {where}: there is no place on the DEM where rocks fit")

    def warning(self) -> str | None:
        """The run's warning about this place, or None when nothing of it was clipped."""
        if self.share == 0.0:
            return None
        parts = []
        if self.nodata_share:
            parts.append(f"{_percent(self.nodata_share)} in a nodata area of the DEM")
        if self.outside_share:
            parts.append(f"{_percent(self.outside_share)} outside the DEM")
        of = {"area": "its area", "length": "its length", "weight": "its cells' weight"}
        return (
            f"{self.label}: {_percent(self.share)} of {of[self.measure]} lies off the DEM "
            f"({' and '.join(parts)}) and was clipped: its rocks start on the remaining "
            f"{_percent(1.0 - self.share)}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "clipped_share": self.share,
            "nodata_share": self.nodata_share,
            "outside_share": self.outside_share,
            "measure": self.measure,
        }


def _percent(share: float) -> str:
    """A share as a percentage, never rounded to 0 % or 100 % unless exact."""
    value = 100.0 * share
    text = f"{value:.3g} %"
    if value > 0.0 and text == "0 %":
        return "< 0.001 %"
    if value < 100.0 and text == "100 %":
        return "> 99.9 %"
    return text
