"""What the Poinsot page plays back: a body, a trajectory and its Poinsot geometry as JSON.

:class:`TrajectoryRequest` is the validated request of ``POST /api/trajectory``; :func:`scene`
builds the body from :mod:`tumble.bodies.catalogue`, starts it near the chosen principal axis,
integrates with the chosen scheme of :mod:`tumble.freerot` and returns plain lists for the page.
Errors of the input raise ``ValueError``; failures of a scheme raise
:class:`tumble.status.KernelError` (or ``NotImplementedError``): the server turns both into an
HTTP 422 answer.
"""

from __future__ import annotations

import math
import time
from typing import Any, Literal, get_args

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tumble.bodies import catalogue
from tumble.bodies.inertia import axis_order, principal_inertia
from tumble.bodies.polyhedron import hull_triangles
from tumble.freerot import SCHEMES, STEPPERS, exact, integrate
from tumble.freerot.flips import flip_counts, flip_prediction
from tumble.freerot.invariants import relative_drift
from tumble.freerot.poinsot import (
    AxisName,
    curve_family,
    momentum_energy_curves,
    near_axis_omega,
    polhode_loops,
    trajectory_geometry,
)
from tumble.freerot.trajectory import step_plan

#: the largest number of time steps one request may ask for (keeps a request under a few seconds)
MAX_STEPS = 400_000
#: the largest number of frames sent to the page
MAX_FRAMES = 4000

Shape = Literal["cuboid", "ellipsoid", "cylinder", "crossed_rods", "eota111", "eota221", "moments"]
SHAPES: tuple[str, ...] = get_args(Shape)


class BodySpec(BaseModel):
    """The body: a catalogue shape with its dimensions (m) and mass (kg), or custom moments."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    shape: Shape = "cuboid"
    a: float = Field(3.0, description="cuboid edge / ellipsoid semi-axis along x (m)")
    b: float = Field(2.0, description="cuboid edge / ellipsoid semi-axis along y (m)")
    c: float = Field(1.0, description="cuboid edge / ellipsoid semi-axis along z (m)")
    mass: float = Field(1.0, description="mass (kg) of the cuboid, ellipsoid, cylinder, EOTA")
    radius: float = Field(0.5, description="cylinder radius (m)")
    length: float = Field(2.0, description="cylinder length (m)")
    length1: float = Field(2.0, description="crossed rods: length of rod 1 (m)")
    mass1: float = Field(1.0, description="crossed rods: mass of rod 1 (kg)")
    length2: float = Field(1.2, description="crossed rods: length of rod 2 (m)")
    mass2: float = Field(1.0, description="crossed rods: mass of rod 2 (kg)")
    angle_deg: float = Field(90.0, description="crossed rods: angle between the rods (deg)")
    crossing1: float = Field(0.5, description="crossed rods: crossing point along rod 1 (0..1)")
    crossing2: float = Field(0.3, description="crossed rods: crossing point along rod 2 (0..1)")
    inertia: tuple[float, float, float] = Field(
        (5.0 / 12.0, 10.0 / 12.0, 13.0 / 12.0), description="custom principal moments (kg m^2)"
    )


class TrajectoryRequest(BaseModel):
    """One run: body, initial axis and perturbation, spin rate, scheme and time stepping."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    body: BodySpec = Field(default_factory=BodySpec)
    axis: AxisName = "intermediate"
    perturbation: float = Field(0.01, description="other components / spin rate")
    spin_rate: float = Field(10.0, description="rad/s about the chosen axis")
    scheme: str = "implicit"
    dt: float = Field(0.01, description="time step (s)")
    t_end: float = Field(20.0, description="duration (s)")
    max_frames: int = Field(1000, description="at most this many samples are sent")


def build_body(spec: BodySpec) -> tuple[catalogue.Body, dict]:
    """The catalogue body of ``spec`` and its drawing for the page (body-frame coordinates)."""
    if spec.shape == "cuboid":
        body = catalogue.cuboid(spec.a, spec.b, spec.c, mass=spec.mass)
    elif spec.shape == "ellipsoid":
        body = catalogue.ellipsoid(spec.a, spec.b, spec.c, mass=spec.mass)
        return body, {"kind": "ellipsoid", "semi_axes": [spec.a, spec.b, spec.c]}
    elif spec.shape == "cylinder":
        body = catalogue.cylinder(spec.radius, spec.length, mass=spec.mass)
        return body, {"kind": "cylinder", "radius": spec.radius, "length": spec.length}
    elif spec.shape == "crossed_rods":
        body = catalogue.crossed_rods(
            spec.length1,
            spec.mass1,
            spec.length2,
            spec.mass2,
            angle=math.radians(spec.angle_deg),
            crossing1=spec.crossing1,
            crossing2=spec.crossing2,
        )
        v = body.vertices
        assert v is not None  # crossed rods always have their four ends as vertices
        # vertices: + ends of rods 1 and 2, then their - ends
        return body, {"kind": "rods", "segments": [[v[0], v[2]], [v[1], v[3]]]}
    elif spec.shape == "eota111":
        body = catalogue.eota111(size=spec.a, mass=None)
    elif spec.shape == "eota221":
        body = catalogue.eota221(size=spec.a, mass=None)
    elif spec.shape == "moments":
        return _moments_body(spec.inertia)
    else:  # pragma: no cover - the request model lists the shapes
        raise ValueError(f"unknown shape {spec.shape!r}; choose one of {', '.join(SHAPES)}")
    vertices = body.vertices
    assert vertices is not None  # cuboids and EOTA blocks are polyhedra
    index, faces, _ = hull_triangles(vertices)
    return body, {"kind": "mesh", "vertices": vertices[index], "faces": faces}


def _moments_body(inertia) -> tuple[catalogue.Body, dict]:
    """Custom moments, drawn as the uniform 1 kg ellipsoid that has them."""
    moments = principal_inertia(inertia, name="custom principal moments")
    total = moments.sum()
    semi2 = 2.5 * (total - 2.0 * moments)  # a^2 = 5/(2m) (B + C - A) for m = 1 kg
    semi = np.sqrt(np.maximum(semi2, 1e-4 * semi2.max()))
    body = catalogue.Body("custom moments", 1.0, moments, None, 0.0, 2.0 * semi)
    return body, {"kind": "ellipsoid", "semi_axes": semi}


def ellipsoid_scale(inertia, drawing: dict) -> float:
    """Scale ``s`` of the inertia ellipsoid ``sum I_i x_i^2 = s^2`` that just encloses the body.

    The page draws the ellipsoid with semi-axes ``s / sqrt(I_i)`` (the construction is the same
    at any scale): a point ``v`` of the body lies inside when ``sum I_i v_i^2 <= s^2``.
    """
    inertia = np.asarray(inertia, dtype=np.float64)
    kind = drawing["kind"]
    if kind == "mesh":
        points = np.asarray(drawing["vertices"], dtype=np.float64)
        reach = float(np.max(points**2 @ inertia))
    elif kind == "rods":
        points = np.asarray(drawing["segments"], dtype=np.float64).reshape(-1, 3)
        reach = float(np.max(points**2 @ inertia))
    elif kind == "ellipsoid":
        reach = float(np.max(inertia * np.asarray(drawing["semi_axes"]) ** 2))
    elif kind == "cylinder":
        r, half = drawing["radius"], 0.5 * drawing["length"]
        reach = r * r * max(inertia[0], inertia[1]) + inertia[2] * half * half
    else:  # pragma: no cover - build_body makes only these
        raise ValueError(f"unknown drawing {kind!r}")
    return 1.02 * math.sqrt(reach)


def _finite_or_none(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def scheme_table() -> list[dict]:
    """Name, order, invariants and kind of every scheme, the exact solution last."""
    rows: list[dict[str, Any]] = []
    for name in SCHEMES:
        if name == "exact":
            rows.append(
                {
                    "name": "exact",
                    "order": None,
                    "implicit": False,
                    "preserves": ["energy", "spin", "spin_norm", "unit_quaternion"],
                    "description": "Jacobi elliptic functions (no time stepping)",
                }
            )
            continue
        cls = STEPPERS[name]
        rows.append(
            {
                "name": name,
                "order": cls.order,
                "implicit": cls.implicit,
                "preserves": sorted(cls.preserves),
                "description": cls().describe(),
            }
        )
    return rows


def _check_run(req: TrajectoryRequest) -> tuple[int, int]:
    """``(n_steps, save_every)`` after checking the time stepping and the scheme name."""
    if req.scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {req.scheme!r}; choose one of {', '.join(SCHEMES)}")
    for name in ("dt", "t_end", "spin_rate"):
        value = getattr(req, name)
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f"{name} must be a positive number, got {value!r}")
    if not (math.isfinite(req.perturbation) and 0.0 <= req.perturbation <= 10.0):
        raise ValueError(f"perturbation must lie in [0, 10], got {req.perturbation!r}")
    if not 2 <= req.max_frames <= MAX_FRAMES:
        raise ValueError(f"max_frames must lie in [2, {MAX_FRAMES}], got {req.max_frames}")
    n_steps = step_plan(req.dt, req.t_end).n_steps
    if n_steps > MAX_STEPS:
        raise ValueError(
            f"t_end / dt = {n_steps} steps is more than the {MAX_STEPS} one request may run; "
            "raise dt or shorten t_end"
        )
    save_every = max(1, math.ceil(n_steps / (req.max_frames - 1)))
    return n_steps, save_every


def _rows(arr, digits: int = 12) -> list:
    """Nested lists of an array, rounded to ``digits`` significant digits (smaller JSON)."""
    arr = np.asarray(arr, dtype=np.float64)
    return np.vectorize(lambda x: float(f"{x:.{digits}g}"), otypes=[float])(arr).tolist()


def _flips(traj, inertia: np.ndarray, omega0: np.ndarray) -> dict:
    """The flips of the run and of the exact motion at the same instants, by the one definition
    of :mod:`tumble.freerot.flips`, with the predicted period (half a cycle) and why."""
    reference = traj if traj.scheme == "exact" else exact(inertia, omega0, traj.q[0], traj.t)
    prediction = flip_prediction(inertia, omega0)
    return {
        "intermediate_index": axis_order(inertia)["intermediate"],
        "counted": flip_counts(traj).tolist(),
        "exact": flip_counts(reference).tolist(),
        "period": _finite_or_none(prediction.period),
        "reason": prediction.reason,
    }


def scene(req: TrajectoryRequest) -> dict:
    """Run ``req`` and return the JSON-ready scene: body, samples, Poinsot geometry, read-outs."""
    n_steps, save_every = _check_run(req)
    body, drawing = build_body(req.body)
    # a writable copy: catalogue moments are read-only, and numba would compile the time loop
    # a second time for a read-only array type
    inertia = np.array(body.inertia, dtype=np.float64)
    omega0 = near_axis_omega(inertia, req.axis, req.spin_rate, req.perturbation)
    axis_index = axis_order(inertia)[req.axis]
    start = time.perf_counter()
    traj = integrate(req.scheme, inertia, omega0, dt=req.dt, t_end=req.t_end, save_every=save_every)
    elapsed = time.perf_counter() - start
    geo = trajectory_geometry(traj)
    energy0, spin0 = float(geo.energy[0]), float(np.linalg.norm(geo.spin[0]))
    spin_norm = np.linalg.norm(geo.spin, axis=-1)
    scale = ellipsoid_scale(inertia, drawing)
    drawing = {k: np.asarray(v).tolist() if k != "kind" else v for k, v in drawing.items()}
    order = axis_order(inertia)
    return {
        "scheme": req.scheme,
        "request": req.model_dump(),
        "body": {
            "name": body.name,
            "mass": body.mass,
            "size": np.asarray(body.size).tolist(),
            "drawing": drawing,
            "axis_order": order,
            "ellipsoid_scale": scale,
        },
        "inertia": inertia.tolist(),
        "omega0": omega0.tolist(),
        "axis_index": axis_index,
        "dt": req.dt,
        "save_every": save_every,
        "n_steps": n_steps,
        "compute_seconds": elapsed,
        "t": traj.t.tolist(),
        "q": _rows(traj.q),
        "omega": _rows(traj.omega),
        "omega_lab": _rows(geo.omega_lab),
        "spin": _rows(geo.spin),
        "spin_body": _rows(geo.spin_body),
        "point_body": _rows(geo.point_body),
        "point_lab": _rows(geo.point_lab),
        "plane_normal": _rows(geo.plane_normal),
        "plane_distance": _rows(geo.plane_distance),
        "energy": geo.energy.tolist(),
        "drift": {
            "energy": relative_drift(geo.energy).tolist(),
            "spin_norm": np.abs(spin_norm / spin0 - 1.0).tolist(),
            "spin": relative_drift(geo.spin).tolist(),
        },
        "invariants": {"energy": energy0, "spin_norm": spin0},
        "flips": _flips(traj, inertia, omega0),
        "curves": {
            "family": [
                {"energy": e, "loops": [_rows(loop, 6) for loop in loops]}
                for e, loops in curve_family(inertia, spin0)
            ],
            "current": [_rows(loop, 8) for loop in momentum_energy_curves(inertia, energy0, spin0)],
            "polhode": [_rows(loop, 8) for loop in polhode_loops(inertia, energy0, spin0)],
        },
    }
