"""Triangle meshes and point lists from files, as plain arrays.

:func:`read_mesh` reads STL (ASCII or binary), PLY and OBJ files through trimesh and returns a
:class:`TriangleMesh` ``(vertices, faces)``: ``vertices`` (n, 3) float64 and ``faces`` (m, 3)
int64 indexing them, with duplicated vertices merged (an STL file stores every triangle with its
own three corners; merging makes shared edges share vertex indices, so that
:func:`boundary_edges` can tell a closed surface from an open one). Faces keep the file's order
and winding; degenerate faces are kept too (dropping them is the caller's decision).

:func:`read_points` reads a plain text point list (``.xyz``, ``.txt``, ``.csv``, ``.pts``): three
coordinates per line, whitespace or comma separated, ``#`` starts a comment, further columns
(normals, colours) are ignored and one non-numeric header line is skipped.

:func:`mesh_volume` and :func:`boundary_edges` are the two facts about a mesh that the
callers need: the enclosed volume by the divergence theorem, and whether the surface is closed.

Every problem with a file (missing, unknown suffix, unreadable, empty, non-finite coordinates,
face indices out of range) raises a :class:`tumble.errors.DataError` (a ValueError) that names
the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from tumble.errors import DataError

#: File suffixes :func:`read_mesh` understands (read with trimesh).
MESH_SUFFIXES = (".stl", ".ply", ".obj")
#: File suffixes :func:`read_points` understands (plain text, x y z per line).
POINT_SUFFIXES = (".xyz", ".txt", ".csv", ".pts")


class TriangleMesh(NamedTuple):
    """A triangle mesh as plain arrays: ``vertices`` (n, 3) float64, ``faces`` (m, 3) int64."""

    vertices: np.ndarray
    faces: np.ndarray


#: bytes of a binary STL: an 80-byte header, a uint32 triangle count, 50 bytes a triangle
STL_HEADER = 84
STL_TRIANGLE = 50


def check_mesh_file(path: str | os.PathLike, what: str = "mesh") -> None:
    """DataError naming the file unless its content looks like its suffix says (STL binary or
    ASCII, PLY, OBJ), checked before trimesh reads it: a file of another kind gets a message
    saying so rather than an error from deep inside a reader.

    * binary STL: ``84 + 50 n`` bytes with ``n`` the uint32 at byte 80; ASCII STL: text that
      starts with ``solid``;
    * PLY: starts with the line ``ply`` and holds ``end_header``;
    * OBJ: text (UTF-8, no NUL bytes) with at least one vertex line ``v x y z``;
    * OFF: text starting with ``OFF``; binary glTF: starts with ``glTF``; glTF: JSON text.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    data = path.read_bytes()
    name = f"{what} file {path.name!r}"
    if suffix == ".stl":
        if len(data) >= STL_HEADER:
            count = int.from_bytes(data[80:84], "little")
            if len(data) == STL_HEADER + STL_TRIANGLE * count:
                return
        text = _text(data)
        if text is not None and text.lstrip().startswith("solid"):
            return
        raise DataError(
            f"{name} is not an STL mesh: neither binary STL ({STL_HEADER} header bytes and "
            f"{STL_TRIANGLE} bytes a triangle; it has {len(data)} bytes) nor ASCII STL (text "
            "starting with 'solid')"
        )
    if suffix == ".ply":
        if data.split(b"\n", 1)[0].strip() == b"ply" and b"end_header" in data:
            return
        raise DataError(f"{name} is not a PLY mesh: it must start with a line 'ply' and a header")
    if suffix == ".obj":
        text = _text(data)
        if text is not None and any(
            line.split()[:1] == ["v"] for line in text.splitlines() if line.strip()
        ):
            return
        raise DataError(f"{name} is not an OBJ mesh: no text with vertex lines 'v x y z'")
    if suffix == ".off":
        text = _text(data)
        if text is not None and text.lstrip().startswith(("OFF", "COFF", "NOFF")):
            return
        raise DataError(f"{name} is not an OFF mesh: it must be text starting with 'OFF'")
    if suffix == ".glb":
        if data[:4] == b"glTF":
            return
        raise DataError(f"{name} is not a binary glTF mesh: it must start with 'glTF'")
    if suffix == ".gltf":
        text = _text(data)
        if text is not None and text.lstrip().startswith("{"):
            return
        raise DataError(f"{name} is not a glTF mesh: it must be JSON text")


def _text(data: bytes) -> str | None:
    """``data`` as UTF-8 text, None if it is binary (NUL bytes or not UTF-8)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def existing_file(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path; DataError naming ``what`` for a folder or a missing file."""
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{what} {str(path)!r} is a folder, not a file")
    if not path.is_file():
        raise DataError(f"{what} {str(path)!r} does not exist")
    return path


def _existing_file(path: str | os.PathLike, suffixes: tuple[str, ...], what: str) -> Path:
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{what} file {str(path)!r} is a folder, not a file")
    if not path.is_file():
        raise DataError(f"{what} file {str(path)!r} does not exist")
    if path.suffix.lower() not in suffixes:
        raise DataError(
            f"{what} file {path.name!r}: unsupported suffix {path.suffix!r}; "
            f"supported: {', '.join(suffixes)}"
        )
    return path


def read_mesh(path: str | os.PathLike) -> TriangleMesh:
    """Read a triangle mesh from an STL (ASCII or binary), PLY or OBJ file.

    Several objects in one file (OBJ groups, PLY elements) are concatenated into one mesh.
    Duplicated vertices are merged; faces keep their order and winding. DataError for a missing
    file, an unsupported suffix, a file trimesh cannot read, a mesh without faces, non-finite
    coordinates or face indices out of range.
    """
    path = _existing_file(path, MESH_SUFFIXES, "mesh")
    check_mesh_file(path)
    import trimesh

    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as err:
        raise DataError(f"mesh file {path.name!r} could not be read: {err}") from None
    vertices = np.asarray(getattr(loaded, "vertices", np.empty((0, 3))), dtype=np.float64)
    faces = np.asarray(getattr(loaded, "faces", np.empty((0, 3))), dtype=np.int64)
    if faces.size == 0 or vertices.size == 0:
        raise DataError(f"mesh file {path.name!r} holds no triangles")
    if vertices.ndim != 2 or vertices.shape[1] != 3 or faces.ndim != 2 or faces.shape[1] != 3:
        raise DataError(
            f"mesh file {path.name!r}: expected (n, 3) vertices and (m, 3) triangles, got "
            f"{vertices.shape} and {faces.shape}"
        )
    bad = ~np.isfinite(vertices).all(axis=1)
    if bad.any():
        raise DataError(
            f"mesh file {path.name!r}: {int(bad.sum())} vertices have non-finite coordinates "
            f"(NaN or infinity), the first is vertex {int(np.argmax(bad))}"
        )
    if faces.min() < 0 or faces.max() >= len(vertices):
        raise DataError(
            f"mesh file {path.name!r}: face indices must lie in [0, {len(vertices) - 1}]; "
            f"found {faces.min()} .. {faces.max()}"
        )
    return merge_vertices(vertices, faces)


def merge_vertices(vertices: ArrayLike, faces: ArrayLike) -> TriangleMesh:
    """Merge bitwise-equal vertices and reindex the faces; the first occurrence keeps its order."""
    vertices = np.asarray(vertices, dtype=np.float64)
    faces = np.asarray(faces, dtype=np.int64)
    # -0.0 and 0.0 are the same point
    unique, first, inverse = np.unique(
        vertices + 0.0, axis=0, return_index=True, return_inverse=True
    )
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    merged = np.ascontiguousarray(unique[order])
    new_faces = np.ascontiguousarray(rank[inverse.reshape(-1)][faces])
    return TriangleMesh(merged, new_faces)


def read_points(path: str | os.PathLike) -> np.ndarray:
    """Read a text point list (x y z per line) into an (n, 3) float64 array.

    Whitespace or commas separate the values, ``#`` starts a comment, columns after the third
    are ignored, and a first line that is not numeric is taken as a header. DataError for a
    missing file, an unsupported suffix, a line with fewer than three numbers, non-finite values
    or a file without points.
    """
    path = _existing_file(path, POINT_SUFFIXES, "point")
    rows = []
    header_allowed = True
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = line.split("#", 1)[0].replace(",", " ").split()
        if not fields:
            continue
        try:
            values = [float(v) for v in fields[:3]]
        except ValueError:
            if header_allowed:
                header_allowed = False
                continue  # a header such as "x y z"
            raise DataError(
                f"point file {path.name!r}, line {number}: expected numbers x y z, got "
                f"{line.strip()!r}"
            ) from None
        header_allowed = False
        if len(values) < 3:
            raise DataError(
                f"point file {path.name!r}, line {number}: expected three coordinates x y z, "
                f"got {len(values)}"
            )
        if not np.isfinite(values).all():
            raise DataError(f"point file {path.name!r}, line {number}: non-finite coordinate")
        rows.append(values)
    if not rows:
        raise DataError(f"point file {path.name!r} holds no points")
    return np.array(rows, dtype=np.float64)


def mesh_volume(vertices: ArrayLike, faces: ArrayLike) -> float:
    """Volume enclosed by a closed, consistently wound triangle mesh (divergence theorem).

    ``V = (1/6) sum_f (a_f x b_f) . c_f`` over the triangles ``(a, b, c)``, taken about the mean
    vertex to limit round-off; positive for outward (counter-clockwise seen from outside)
    winding, negative for inward winding. For a surface with holes the result is the volume of
    the surface closed by the cones from the mean vertex over the holes: off by at most
    ``(hole area) x (largest distance from the mean vertex) / 3``.
    """
    vertices = np.asarray(vertices, dtype=np.float64)
    corners = vertices[np.asarray(faces, dtype=np.int64)] - vertices.mean(axis=0)
    a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
    return float(np.einsum("ij,ij->i", np.cross(a, b), c).sum() / 6.0)


def boundary_edges(faces: ArrayLike) -> np.ndarray:
    """Edges (k, 2) used by exactly one triangle: empty for a closed surface.

    Needs shared vertices (see :func:`merge_vertices`); an edge used by three or more
    triangles (non-manifold) is not reported here.
    """
    faces = np.asarray(faces, dtype=np.int64)
    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    unique, count = np.unique(edges, axis=0, return_counts=True)
    return unique[count == 1]


def is_closed(faces: ArrayLike) -> bool:
    """Whether every edge is shared by exactly two triangles with opposite directions (a
    closed, consistently wound, manifold surface: :func:`mesh_volume` is then exact)."""
    faces = np.asarray(faces, dtype=np.int64)
    directed = faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    if np.unique(directed, axis=0).shape[0] != directed.shape[0]:
        return False  # an edge traversed twice in the same direction: inconsistent winding
    undirected, count = np.unique(np.sort(directed, axis=1), axis=0, return_counts=True)
    return bool(undirected.size) and bool(np.all(count == 2))


def cap_holes(faces: ArrayLike) -> tuple[np.ndarray, int]:
    """Close every hole of a consistently wound surface by a fan of triangles.

    A hole is a loop of directed edges whose reverse no triangle uses; each loop ``v0, v1, ...,
    v(k-1)`` (in the direction of its triangles) is capped by ``(v0, v(i+1), v(i))``, which
    traverses the loop backwards and so keeps the winding consistent. Returns the faces with
    the caps appended and the number of holes. Exact for planar holes; a small non-planar hole
    is closed by a surface within its own extent. ValueError for holes that touch themselves
    (a vertex with two outgoing boundary edges).
    """
    faces = np.asarray(faces, dtype=np.int64)
    directed = faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    edge_set = {(int(a), int(b)) for a, b in directed}
    following: dict[int, int] = {}
    for a, b in directed:
        a, b = int(a), int(b)
        if (b, a) not in edge_set:
            if a in following:
                raise ValueError(f"the hole boundary passes twice through vertex {a}")
            following[a] = b
    caps: list[tuple[int, int, int]] = []
    holes = 0
    while following:
        start, loop = next(iter(following)), []
        vertex = start
        while vertex in following:
            loop.append(vertex)
            vertex = following.pop(vertex)
        if vertex != start or len(loop) < 3:
            raise ValueError("the hole boundary is not a closed loop of at least 3 edges")
        holes += 1
        caps.extend((loop[0], loop[i + 1], loop[i]) for i in range(1, len(loop) - 1))
    if not caps:
        return faces, 0
    return np.concatenate([faces, np.array(caps, dtype=np.int64)]), holes
