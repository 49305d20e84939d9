"""What a run stores for its readers besides the results (``geometry.json``): the rock hulls per
class, the bodies of the rocks whose trajectories were kept, the barrier lines and the release
areas. The 3D view and the barrier replay read them from the folder instead of compiling the
configuration again.

Layout (``"version": 1``)::

    shapes     one per rock class: name, mass_kg, volume_m3, inertia_kg_m2 (A, B, C),
               vertices (m, principal frame) and faces (outward triangles of the hull)
    rocks      the kept rocks (exactly those of trajectories.parquet, and rock 0 always: the
               3D view draws its hull), ascending: rock, shape_id, scale (of the shape's
               vertices), mass_kg, inertia_kg_m2
    barriers   name, kind ("line" or "net"), line (x, y in the DEM's CRS), height_m, capacity_kJ,
               uphill ("left" or "right" seen along the line: the side the rocks come from),
               and how it was decided: uphill_from, release_share_uphill,
               release_share_downslope (tumble.rockfall.site.barrier_files)
    release    kind ("point", "line", "polygon", "areas" or "raster") and, for areas, every
               area's name, frequency and rings (x, y in the DEM's CRS); footprint: points
               (x, y) and weights standing for where the rocks start (Release.footprint),
               from which the uphill side of a barrier replayed on the run is decided

Floats are written with Python's shortest round-trip representation, so what is read back is
bit for bit what the run used (the replay's crossings equal the run's).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.bodies.polyhedron import hull_triangles
from tumble.io.run_folder import GEOMETRY_VERSION
from tumble.rockfall.barriers import Barrier
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release
from tumble.rockfall.site.areas import ReleaseAreas

if TYPE_CHECKING:
    from tumble.rockfall.site.barrier_files import BarrierSide


def run_geometry(
    ensemble: Ensemble,
    release: Release,
    kept: Iterable[int],
    sides: Sequence[BarrierSide | None] = (),
) -> dict[str, Any]:
    """The geometry record of a run that stores the trajectories of the rocks ``kept`` (the
    bodies of exactly these rocks, and rock 0's); ``sides``: how each barrier's uphill side was
    decided (none: not known)."""
    shapes = []
    for shape in ensemble.shapes:
        vertices = np.asarray(shape.vertices, dtype=np.float64)
        index, faces, _ = hull_triangles(vertices)
        shapes.append(
            {
                "name": shape.name,
                "mass_kg": float(shape.mass),
                "volume_m3": float(shape.volume),
                "inertia_kg_m2": [float(v) for v in shape.inertia],
                "vertices": vertices.tolist(),
                "hull_vertices": [int(i) for i in index],
                "faces": np.asarray(faces).tolist(),
            }
        )
    rocks = sorted({0, *(int(k) for k in kept)})
    if rocks[-1] >= ensemble.n_rocks or rocks[0] < 0:
        raise ValueError(f"kept rocks must be in [0, {ensemble.n_rocks}), got {rocks}")
    bodies = ensemble.bodies
    stored = {
        "rock": rocks,
        "shape_id": [int(ensemble.shape_id[k]) for k in rocks],
        "scale": [float(ensemble.scale[k]) for k in rocks],
        "mass_kg": [float(bodies[k, 0]) for k in rocks],
        "inertia_kg_m2": [[float(v) for v in bodies[k, 1:]] for k in rocks],
    }
    barriers = []
    for i, b in enumerate(ensemble.barriers):
        entry = {
            "name": b.name,
            "kind": b.kind,
            "line": np.asarray(b.line, dtype=np.float64).tolist(),
            "height_m": b.height,
            "capacity_kJ": b.capacity,
            "uphill": b.uphill,
        }
        side = sides[i] if i < len(sides) else None
        if side is not None:
            entry.update(side.record())
        barriers.append(entry)
    return {
        "version": GEOMETRY_VERSION,
        "shapes": shapes,
        "rocks": stored,
        "barriers": barriers,
        "release": _release(release),
    }


def _release(release: Release) -> dict[str, Any]:
    points, weights = release.footprint()
    footprint = {"points": points.tolist(), "weights": weights.tolist()}
    if release.areas is not None:
        areas = release.areas
        assert isinstance(areas, ReleaseAreas)  # the release areas a run builds
        kind = "areas" if any(a.rings for a in areas.areas) else "raster"
        return {
            "kind": kind,
            "areas": [
                {
                    "name": a.name,
                    "frequency": a.frequency,
                    "rings": [np.asarray(r, dtype=np.float64).tolist() for r in a.rings],
                }
                for a in areas.areas
            ],
            "footprint": footprint,
        }
    for kind in ("point", "line", "polygon"):
        value = getattr(release, kind)
        if value is not None:
            return {
                "kind": kind,
                "coordinates": np.atleast_2d(value).tolist(),
                "footprint": footprint,
            }
    return {"kind": None}


def release_footprint(record: dict[str, Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """The release footprint ``(points (k, 2), weights (k,))`` the run stored, or None (a run
    of an earlier version of tumble, which stored none)."""
    footprint = (record.get("release") or {}).get("footprint")
    if not footprint:
        return None
    points = np.asarray(footprint["points"], dtype=np.float64).reshape(-1, 2)
    return points, np.asarray(footprint["weights"], dtype=np.float64)


def barriers_from_geometry(record: dict[str, Any]) -> tuple[Barrier, ...]:
    """The run's barriers, as the run used them (with the uphill side the run decided; None in
    a record of an earlier version of tumble, which stored none)."""
    return tuple(
        Barrier(
            name=b["name"],
            line=np.asarray(b["line"], dtype=np.float64),
            height=b["height_m"],
            capacity=b["capacity_kJ"],
            uphill=b.get("uphill"),
        )
        for b in record["barriers"]
    )


def barrier_sides_from_geometry(record: dict[str, Any]) -> list[dict[str, Any] | None]:
    """How the run decided each barrier's uphill side (the keys of
    :meth:`tumble.rockfall.site.barrier_files.BarrierSide.record`), None where not stored."""
    keys = ("uphill", "uphill_from", "release_share_uphill", "release_share_downslope")
    # which way a crossing counts: stored since lines between sources count from each rock's
    # own side; a run of an earlier version counted every line from its uphill side
    optional = ("direction_from", "direction_rule")
    return [
        {k: b[k] for k in (*keys, *(o for o in optional if o in b))}
        if all(k in b for k in keys)
        else None
        for b in record["barriers"]
    ]


def kept_bodies(record: dict[str, Any], n_rocks: int) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """``bodies`` (n_rocks, 4: mass and principal moments; NaN for rocks not kept) and the hull
    vertices of every kept rock in its body frame, as the run used them (shape vertices times
    the rock's scale)."""
    rocks = record["rocks"]
    bodies = np.full((int(n_rocks), 4), np.nan)
    vertices: dict[int, np.ndarray] = {}
    shapes = [np.asarray(s["vertices"], dtype=np.float64) for s in record["shapes"]]
    for k, shape_id, scale, mass, inertia in zip(
        rocks["rock"],
        rocks["shape_id"],
        rocks["scale"],
        rocks["mass_kg"],
        rocks["inertia_kg_m2"],
        strict=True,
    ):
        if not 0 <= int(k) < n_rocks:
            raise ValueError(f"the geometry record names rock {k} of a run of {n_rocks} rocks")
        bodies[int(k)] = [mass, *inertia]
        vertices[int(k)] = np.ascontiguousarray(shapes[int(shape_id)] * float(scale))
    return bodies, vertices


def kept_rocks(record: dict[str, Any]) -> Sequence[int]:
    """The rocks whose bodies the record holds."""
    return [int(k) for k in record["rocks"]["rock"]]
