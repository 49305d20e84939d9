"""A finished rockfall run folder read for the 3D view (``tumble view``).

:class:`RunFolder` checks that a folder is a finished result of ``tumble rockfall run`` with
stored trajectories (ValueError otherwise, naming what is missing) and turns its files into the
compact arrays and records that :mod:`tumble.web.view` serves:

* the terrain (``rasters/dem.tif``) as a grid of at most ``max_vertices`` samples: every
  ``stride``-th DEM sample in each direction, so the vertices carry the DEM's own heights
  (:func:`decimation_stride`);
* every other raster of ``rasters/`` on that grid: the maximum over the ``stride x stride``
  cells around each vertex (:func:`block_max`), so that decimation never hides a hazard; with
  stride 1 the file's values;
* the stored trajectories (``trajectories.parquet``: ``output.trajectories`` rocks, a sample over
  release areas and rock classes with rock 0 always, whose numbers need not be consecutive,
  every ``output.trajectory_every`` steps), sorted by rock and time: time, position, the
  quaternion (w, x, y, z, body to space) and the kinetic energy in kJ; ``rocks`` gives the rock
  number of each stored path;
* the deposits (``deposits.csv``), the release, the barrier lines with their statistics and
  design values (``summary.json["barriers"]``), and the hull of every rock class in its
  principal frame with the class and size of every stored rock, so that each rock is drawn with
  its own hull, as the run stored them (``geometry.json``): nothing is compiled again.

Positions are sent relative to :attr:`RunFolder.origin` (the DEM's centre and lowest height) as
float32: on a national grid (x ~ 2.6e6 m) float32 would keep only 0.25 m, relative to the
centre it keeps millimetres.
"""

from __future__ import annotations

import json
import math
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from tumble.io import run_folder as layout
from tumble.io.dem import RasterGrid, read_raster
from tumble.io.results import is_result_dir
from tumble.io.run_folder import RunPaths, shape_of

#: the largest terrain grid sent to the page (vertices)
MAX_VERTICES = 250_000
#: float32 columns of the trajectory buffer, in order
TRAJECTORY_COLUMNS = ("t", "x", "y", "z", "qw", "qx", "qy", "qz", "kinetic_energy_kJ")
#: float32 columns of the deposit buffer, in order (status: index into ``statuses``)
DEPOSIT_COLUMNS = ("rock", "x", "y", "z", "status")
#: release points of the rocks shown one by one up to this many distinct points
MAX_RELEASE_POINTS = 5000
#: colour maps (matplotlib) of the overlays, by the first word of the raster's name, and of
#: the trajectories' kinetic energy; each is sent as a table of 256 colours
OVERLAY_COLORMAPS = {
    "kinetic": "YlOrRd",
    "jump": "YlGnBu",
    "deposit": "RdPu",
    "passing": "RdPu",
    "velocity": "magma",
    "rotational": "cividis",
}
ENERGY_COLORMAP = "plasma"
#: rasters whose zero means that no rock came (drawn like nodata)
ZERO_IS_EMPTY = ("reach_probability", "passing_count", "deposit_count")


def decimation_stride(shape: tuple[int, int], max_vertices: int = MAX_VERTICES) -> int:
    """The smallest stride ``s`` for which every ``s``-th sample of a ``shape`` grid in each
    direction, ``ceil(ny / s) * ceil(nx / s)`` vertices, is at most ``max_vertices``."""
    ny, nx = shape
    if max_vertices < 4:
        raise ValueError(f"max_vertices must be at least 4, got {max_vertices}")
    stride = max(1, math.floor(math.sqrt(ny * nx / max_vertices)))
    while math.ceil(ny / stride) * math.ceil(nx / stride) > max_vertices:
        stride += 1
    return stride


def block_max(values: np.ndarray, stride: int) -> np.ndarray:
    """Per vertex ``(j, i)`` of the decimated grid (sample ``(j s, i s)``), the maximum of the
    defined cells among rows ``j s - s//2 .. j s - s//2 + s - 1`` and the same columns; NaN
    where all of them are nodata. ``stride`` 1 returns a copy of ``values``."""
    grid = np.asarray(values, dtype=np.float64)
    if stride == 1:
        return grid.copy()
    ny, nx = grid.shape
    my, mx = (ny - 1) // stride + 1, (nx - 1) // stride + 1
    half = stride // 2
    padded = np.full((my * stride, mx * stride), -np.inf)
    rows, cols = min(ny, my * stride - half), min(nx, mx * stride - half)
    block = grid[:rows, :cols]
    padded[half : half + rows, half : half + cols] = np.where(np.isnan(block), -np.inf, block)
    out = padded.reshape(my, stride, mx, stride).max(axis=(1, 3))
    out[np.isneginf(out)] = np.nan
    return out


def colour_table(name: str) -> str:
    """256 colours of a matplotlib colour map as one hex string (6 characters each)."""
    import matplotlib

    rgb = matplotlib.colormaps[name](np.linspace(0.0, 1.0, 256))[:, :3]
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in np.round(rgb * 255).astype(int))


def _overlay_colormap(name: str) -> str:
    return OVERLAY_COLORMAPS.get(name.split("_")[0], "viridis")


def _finite_or_none(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


class RunFolder:
    """A finished run folder of ``tumble rockfall run``, read lazily and cached.

    ValueError at construction when ``path`` is not a folder, not a tumble result, an unfinished
    run, or lacks ``summary.json``, ``rasters/dem.tif``, ``deposits.csv`` or
    ``trajectories.parquet``.
    """

    def __init__(self, path: str | Path, max_vertices: int = MAX_VERTICES) -> None:
        folder = Path(path)
        if not folder.is_dir():
            raise ValueError(f"{folder} is not a run folder: no such directory")
        if not is_result_dir(folder):
            raise ValueError(
                f"{folder} is not a result of tumble (no provenance.json written by tumble); "
                "give the --out folder of `tumble rockfall run`"
            )
        if not (folder / layout.SUMMARY).is_file():
            if (folder / layout.CHUNKS / layout.MANIFEST).is_file():
                raise ValueError(
                    f"{folder} holds an unfinished run; finish it with `tumble rockfall run "
                    f"... --out {folder} --resume`"
                )
            raise ValueError(f"{folder} is not a rockfall run: it has no summary.json")
        for name in (f"{layout.RASTERS}/{layout.DEM}", layout.DEPOSITS_CSV):
            if not (folder / name).is_file():
                raise ValueError(f"{folder} is not a complete rockfall run: {name} is missing")
        if not (folder / layout.TRAJECTORIES_PARQUET).is_file():
            raise ValueError(
                f"{folder} has no stored trajectories (trajectories.parquet); run again with "
                "output.trajectories=N (N > 0) to keep the paths of N rocks"
            )
        self.path = folder
        self.max_vertices = int(max_vertices)
        self.summary: dict[str, Any] = json.loads((folder / layout.SUMMARY).read_text())
        self.provenance: dict[str, Any] = json.loads((folder / layout.PROVENANCE).read_text())
        config = self.provenance.get("config", {})
        self.resolved: dict[str, Any] = (
            config.get("resolved", {}) if isinstance(config, dict) else {}
        )

    # ------------------------------------------------------------------------------ terrain

    @cached_property
    def dem(self) -> RasterGrid:
        return read_raster(RunPaths(self.path).dem)

    @cached_property
    def stride(self) -> int:
        return decimation_stride(self.dem.shape, self.max_vertices)

    @cached_property
    def origin(self) -> tuple[float, float, float]:
        """The point that the page's coordinates are relative to (m, the DEM's CRS)."""
        dem = self.dem
        ny, nx = dem.shape
        defined = dem.values[np.isfinite(dem.values)]
        z0 = float(defined.min()) if defined.size else 0.0
        return dem.x0 + 0.5 * (nx - 1) * dem.dx, dem.y0 + 0.5 * (ny - 1) * dem.dy, z0

    def terrain(self) -> np.ndarray:
        """The decimated heights relative to the origin, float32 (ny, nx), rows south to
        north, NaN in nodata cells."""
        s = self.stride
        return (self.dem.values[::s, ::s] - self.origin[2]).astype(np.float32)

    def terrain_grid(self) -> dict[str, Any]:
        dem, s = self.dem, self.stride
        ny, nx = (dem.shape[0] - 1) // s + 1, (dem.shape[1] - 1) // s + 1
        heights = self.terrain()
        return {
            "nx": nx,
            "ny": ny,
            "x0": dem.x0 - self.origin[0],
            "y0": dem.y0 - self.origin[1],
            "dx": dem.dx * s,
            "dy": dem.dy * s,
            "stride": s,
            "dem_shape": list(dem.shape),
            "dem_spacing": [dem.dx, dem.dy],
            "z_max": _finite_or_none(np.nanmax(heights)) if np.isfinite(heights).any() else None,
        }

    # ------------------------------------------------------------------------------ rasters

    @cached_property
    def raster_names(self) -> list[str]:
        """The rasters of ``rasters/`` other than the DEM (GeoTIFF names without suffix)."""
        names = sorted(p.stem for p in RunPaths(self.path).rasters.glob("*.tif"))
        return [name for name in names if name != "dem"]

    def overlay(self, name: str) -> tuple[np.ndarray, dict[str, Any]]:
        """Raster ``name`` on the terrain grid (float32, :func:`block_max`) and its legend:
        description, unit, range, scale (``log`` for a reach probability spanning a factor 10
        or more), whether zero means no rock, and its colour table."""
        if name not in self.raster_names:
            raise KeyError(name)
        grid = read_raster(RunPaths(self.path).raster(name))
        if grid.shape != self.dem.shape:
            raise ValueError(f"rasters/{name}.tif is not on the DEM's grid")
        values = block_max(grid.values, self.stride)
        empty_zero = name in ZERO_IS_EMPTY
        shown = values[np.isfinite(values) & ((values > 0) if empty_zero else True)]
        low = float(shown.min()) if shown.size else 0.0
        high = float(shown.max()) if shown.size else 1.0
        scale = "log" if name == "reach_probability" and low > 0 and high >= 10 * low else "linear"
        legend = {
            "name": name,
            "description": grid.description or name.replace("_", " "),
            "unit": grid.unit or "",
            "min": low,
            "max": high,
            "scale": scale,
            "zero_is_empty": empty_zero,
            "colors": colour_table(_overlay_colormap(name)),
        }
        return values.astype(np.float32), legend

    # ------------------------------------------------------------------------- trajectories

    @cached_property
    def _trajectories(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(columns (9, n) float32, rocks, offsets)``: the stored samples sorted by rock and
        time; rock ``rocks[k]`` owns samples ``offsets[k]:offsets[k+1]``."""
        import pyarrow.parquet as pq

        names = ["rock", "t", "x", "y", "z", "qw", "qx", "qy", "qz", "kinetic_energy_J"]
        table = pq.read_table(RunPaths(self.path).trajectories, columns=names)
        rock = np.asarray(table.column("rock").to_numpy(), dtype=np.int64)
        t = np.asarray(table.column("t").to_numpy(), dtype=np.float64)
        order = np.lexsort((t, rock))
        ox, oy, oz = self.origin
        shift = {"x": ox, "y": oy, "z": oz}
        columns = np.empty((len(TRAJECTORY_COLUMNS), rock.size), dtype=np.float32)
        for k, name in enumerate(names[1:]):
            values = np.asarray(table.column(name).to_numpy(), dtype=np.float64)[order]
            if name in shift:
                values = values - shift[name]
            elif name == "kinetic_energy_J":
                values = values * 1e-3
            columns[k] = values
        rock = rock[order]
        rocks, starts = np.unique(rock, return_index=True)
        offsets = np.append(starts, rock.size).astype(np.int64)
        return columns, rocks, offsets

    def trajectories(self) -> bytes:
        """The float32 columns of :data:`TRAJECTORY_COLUMNS`, one after the other."""
        return self._trajectories[0].tobytes()

    def trajectory_layout(self) -> dict[str, Any]:
        columns, rocks, offsets = self._trajectories
        t, energy = columns[0], columns[-1]
        output = self.resolved.get("output", {})
        return {
            "columns": list(TRAJECTORY_COLUMNS),
            "n": int(columns.shape[1]),
            "rocks": rocks.tolist(),
            "offsets": offsets.tolist(),
            "t_end": float(t.max()) if t.size else 0.0,
            "energy_max_kJ": float(energy.max()) if energy.size else 0.0,
            "every_steps": output.get("trajectory_every"),
            "colors": colour_table(ENERGY_COLORMAP),
            **self.kept_bodies(rocks),
        }

    def kept_bodies(self, rocks: np.ndarray) -> dict[str, list[Any]]:
        """How each stored rock is drawn: ``shape_id`` (into :attr:`rock_shapes`) and ``scale``
        (of that shape's vertices) of every rock of ``rocks``, as the run stored them
        (``geometry.json``); a folder without it draws every rock as rock 0."""
        if self.geometry is None:
            return {"shape_id": [0] * len(rocks), "scale": [1.0] * len(rocks)}
        stored = self.geometry["rocks"]
        at = {int(k): i for i, k in enumerate(stored["rock"])}
        missing = [int(k) for k in rocks if int(k) not in at]
        if missing:
            raise ValueError(
                f"{self.path}: geometry.json has no body for the stored rocks {missing[:5]}"
            )
        return {
            "shape_id": [int(stored["shape_id"][at[int(k)]]) for k in rocks],
            "scale": [float(stored["scale"][at[int(k)]]) for k in rocks],
        }

    @cached_property
    def rock_shapes(self) -> list[dict[str, Any]]:
        """The hull of every rock class at scale 1 (vertices in m, principal frame, and outward
        triangles), indexed by the ``shape_id`` of :meth:`kept_bodies`."""
        if self.geometry is None:
            return [{"name": self.shape["name"], **_hull(self.shape)}]
        return [
            {
                "name": shape["name"],
                "vertices": np.asarray(shape["vertices"], dtype=np.float64)[
                    np.asarray(shape["hull_vertices"], dtype=np.int64)
                ].tolist(),
                "faces": shape["faces"],
            }
            for shape in self.geometry["shapes"]
        ]

    # -------------------------------------------------------------------- deposits, release

    @cached_property
    def deposit_table(self) -> dict[str, np.ndarray]:
        """The columns of ``deposits.csv`` (numbers as float64; ``status`` and the text columns,
        such as ``source`` and ``rock_class``, as strings)."""
        import pyarrow as pa
        from pyarrow import csv

        table = csv.read_csv(RunPaths(self.path).deposits)
        columns: dict[str, np.ndarray] = {}
        for name in table.column_names:
            column = table.column(name)
            values = column.to_numpy(zero_copy_only=False)
            text = name == "status" or pa.types.is_string(column.type)
            columns[name] = (
                np.asarray(values, dtype=str) if text else np.asarray(values, dtype=np.float64)
            )
        for name in ("rock", "x", "y", "z", "status"):
            if name not in columns:
                raise ValueError(f"{self.path / 'deposits.csv'} has no column {name!r}")
        return columns

    @cached_property
    def statuses(self) -> list[str]:
        return sorted(set(self.deposit_table["status"].tolist()))

    def deposits(self) -> bytes:
        """The float32 columns of :data:`DEPOSIT_COLUMNS` for the rocks with a final point."""
        d = self.deposit_table
        keep = np.isfinite(d["x"]) & np.isfinite(d["y"]) & np.isfinite(d["z"])
        index = {name: k for k, name in enumerate(self.statuses)}
        status = np.array([index[s] for s in d["status"]], dtype=np.float64)
        ox, oy, oz = self.origin
        rows = [d["rock"], d["x"] - ox, d["y"] - oy, d["z"] - oz, status]
        return np.stack([column[keep] for column in rows]).astype(np.float32).tobytes()

    def release(self) -> dict[str, Any]:
        """The configured release (point, line or polygon, in page coordinates) and the
        distinct release points of the rocks (up to :data:`MAX_RELEASE_POINTS`)."""
        ox, oy, oz = self.origin
        config = self.resolved.get("release", {})
        shape: dict[str, Any] = {"kind": None, "coordinates": []}
        for kind in ("point", "line", "polygon"):
            value = config.get(kind)
            if value is not None:
                vertices = np.atleast_2d(np.asarray(value, dtype=np.float64))
                shape = {"kind": kind, "coordinates": (vertices - (ox, oy)).tolist()}
                break
        d = self.deposit_table
        points: list[list[float]] = []
        if all(f"release_{c}" in d for c in "xyz"):
            xyz = np.column_stack([d["release_x"] - ox, d["release_y"] - oy, d["release_z"] - oz])
            xyz = np.unique(xyz[np.isfinite(xyz).all(axis=1)], axis=0)
            if len(xyz) <= MAX_RELEASE_POINTS:
                points = xyz.tolist()
        return {**shape, "points": points}

    # ------------------------------------------------------------------------------ barriers

    def barriers(self) -> list[dict[str, Any]]:
        """Each barrier: name, kind, height and capacity, its line in page coordinates (None
        when it cannot be read back) and its record of ``summary.json["barriers"]``."""
        entries = list(self.resolved.get("barrier", []))
        records = {b.get("name"): b for b in self.summary.get("barriers") or []}
        lines = self._barrier_lines(entries)
        ox, oy = self.origin[:2]
        out = []
        for entry in entries:
            name = entry.get("name")
            line = lines.get(name)
            record = records.get(name, {})
            out.append(
                {
                    "name": name,
                    "kind": record.get("kind", "net" if entry.get("height") else "line"),
                    "height_m": entry.get("height"),
                    "capacity_kJ": entry.get("capacity"),
                    "line": None if line is None else (line - (ox, oy)).tolist(),
                    "statistics": record,
                }
            )
        return out

    def _barrier_lines(self, entries: list[dict[str, Any]]) -> dict[str, np.ndarray]:
        """Every barrier's line as the run used it (``geometry.json``); for a folder without
        it, the lines typed into the configuration (lines read from files are then not shown)."""
        if self.geometry is not None:
            return {
                b["name"]: np.asarray(b["line"], dtype=np.float64)
                for b in self.geometry["barriers"]
            }
        return {e["name"]: np.asarray(e["line"], float) for e in entries if e.get("line")}

    @cached_property
    def geometry(self) -> dict[str, Any] | None:
        """The run's ``geometry.json`` (rock hulls, barrier lines, release areas), or None for a
        run written before runs stored it."""
        paths = RunPaths(self.path)
        return paths.read_geometry() if paths.geometry.is_file() else None

    # ---------------------------------------------------------------------------------- rock

    @cached_property
    def shape(self) -> dict[str, Any]:
        """Rock 0's convex hull in its principal frame: vertices (m) and outward triangles, with
        name, mass and principal moments, as the run stored it (``geometry.json``); ``source``
        says where it comes from."""
        if self.geometry is not None:
            return {**shape_of(self.geometry, 0), "source": "rock 0 of the run"}
        return self._box()

    def _box(self) -> dict[str, Any]:
        """For a run without ``geometry.json``: the box with the resolved mass and principal
        moments (its edges a_i from A_i = m (a_j^2 + a_k^2) / 12)."""
        from tumble.bodies.polyhedron import hull_triangles
        from tumble.rockfall.rock import Rock

        resolved = self.resolved.get("rock", {})
        mass = float(resolved.get("mass", 0.0))
        inertia = np.asarray(resolved.get("inertia_kg_m2", ()), dtype=np.float64)
        if mass <= 0 or inertia.shape != (3,):
            raise ValueError(f"{self.path}: the rock of the run cannot be drawn (no geometry.json)")
        total = inertia.sum()
        edges = np.sqrt(np.maximum(6.0 * (total - 2.0 * inertia) / mass, 1e-12))
        a, b, c = (float(v) for v in edges)
        box = Rock.box(a, b, c, mass=mass)
        vertices = np.asarray(box.vertices, dtype=np.float64)
        index, faces, _ = hull_triangles(vertices)
        return {
            "name": box.name,
            "mass_kg": float(box.mass),
            "inertia_kg_m2": [float(v) for v in box.inertia],
            "vertices": vertices[index].tolist(),
            "faces": faces.tolist(),
            "source": "a box of the rock's mass and principal moments (the run stored no hull)",
        }

    def rock(self, k: int) -> dict[str, Any]:
        """Rock ``k``: its row of ``deposits.csv``, its shape, and when its path is stored, the
        time series of its velocity (m/s, inertial frame), rotational velocity about the three
        principal axes (rad/s, body frame), height and kinetic energy. KeyError when the run
        has no rock ``k``."""
        d = self.deposit_table
        rows = np.flatnonzero(d["rock"] == k)
        if rows.size == 0:
            raise KeyError(k)
        row = {
            name: (str(v[rows[0]]) if v.dtype.kind == "U" else _finite_or_none(v[rows[0]]))
            for name, v in d.items()
        }
        record: dict[str, Any] = {
            "rock": int(k),
            "deposit": row,
            "shape": self._shape_name(row),
            "mass_kg": row.get("mass_kg") or self.shape["mass_kg"],
            "status": row["status"],
            "path": None,
        }
        if k in set(self._trajectories[1].tolist()):
            record["path"] = self._path_series(k)
        return record

    def _shape_name(self, row: dict[str, Any]) -> str:
        """The name of the shape of the rock of deposit ``row`` (its ``shape_id`` among the
        shapes of ``geometry.json``), or rock 0's when the folder does not say."""
        shape_id = row.get("shape_id")
        shapes = (self.geometry or {}).get("shapes") or []
        if isinstance(shape_id, float) and shape_id.is_integer() and 0 <= shape_id < len(shapes):
            return str(shapes[int(shape_id)]["name"])
        return str(self.shape["name"])

    def _path_series(self, k: int) -> dict[str, list[float]]:
        import pyarrow.parquet as pq

        names = ["t", "x", "y", "z", "vx", "vy", "vz", "omega_x", "omega_y", "omega_z"]
        names.append("kinetic_energy_J")
        table = pq.read_table(
            RunPaths(self.path).trajectories, columns=names, filters=[("rock", "==", int(k))]
        )
        data = {n: np.asarray(table.column(n).to_numpy(), dtype=np.float64) for n in names}
        order = np.argsort(data["t"], kind="stable")
        data = {n: v[order] for n, v in data.items()}
        step = np.hypot(np.diff(data["x"]), np.diff(data["y"]))
        speed = np.sqrt(data["vx"] ** 2 + data["vy"] ** 2 + data["vz"] ** 2)
        return {
            "t": data["t"].tolist(),
            "distance_m": np.concatenate([[0.0], np.cumsum(step)]).tolist(),
            "z_m": data["z"].tolist(),
            "speed_ms": speed.tolist(),
            "vx_ms": data["vx"].tolist(),
            "vy_ms": data["vy"].tolist(),
            "vz_ms": data["vz"].tolist(),
            "omega_x": data["omega_x"].tolist(),
            "omega_y": data["omega_y"].tolist(),
            "omega_z": data["omega_z"].tolist(),
            "kinetic_energy_kJ": (data["kinetic_energy_J"] * 1e-3).tolist(),
        }

    # ---------------------------------------------------------------------------------- meta

    def meta(self) -> dict[str, Any]:
        """Everything the page needs besides the binary buffers."""
        from tumble.rockfall.ensemble import summary_line

        s = self.summary
        try:
            line = summary_line(s)
        except (KeyError, TypeError):
            line = f"{s.get('n_rocks')} rocks ({s.get('scheme')})"
        crs = self.dem.crs
        return {
            "name": self.path.resolve().name,
            "n_rocks": s.get("n_rocks"),
            "scheme": s.get("scheme"),
            "seed": s.get("seed"),
            "summary_line": line,
            "warnings": s.get("warnings", []),
            "origin": list(self.origin),
            "crs": None if crs is None else str(crs),
            "terrain": self.terrain_grid(),
            "rasters": self.raster_names,
            "rock": self.shape,
            "rock_shapes": self.rock_shapes,
            "trajectories": self.trajectory_layout(),
            "deposits": {
                "columns": list(DEPOSIT_COLUMNS),
                "n": int(np.count_nonzero(np.isfinite(self.deposit_table["x"]))),
                "statuses": self.statuses,
            },
            "release": self.release(),
            "barriers": self.barriers(),
        }


def _hull(shape: dict[str, Any]) -> dict[str, Any]:
    return {"vertices": shape["vertices"], "faces": shape["faces"]}
