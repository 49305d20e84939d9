"""Where the simulated Authume blocks stop early, and why: prints one line per early stop.

For each profile: the published drop points against the terrain (height of the release above
the ground below it and above the crest, horizontal distance beyond the crest along the profile,
:func:`tumble.validation.authume.crest_offsets`), then, for the stored calibrated parameters, the
rocks whose run-out is below half the measured 5 % quantile: drop point, shape, mass,
where they stopped (run-out, zone, terrain slope), and their first contact (time, speed
before and just after, the fraction of the kinetic energy left 0.5 s later, the number of hull
vertices in contact). Each rock is re-simulated alone with :func:`tumble.rockfall.simulate`,
which gives the same stop point as the ensemble (checked).

Run from the repository root:

    PYTHONPATH=src python benchmarks/authume_early_stops.py --rocks 64 --scheme implicit
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from tumble.rockfall.simulate import PGS_TOL, simulate
from tumble.validation import authume


def _slope_deg(terrain, x: float, y: float, h: float = 0.5) -> float:
    """Terrain slope at (x, y) from central differences over ``h``; NaN near the DEM's border."""
    xs, ys = np.array([x + h, x - h, x, x]), np.array([y, y, y + h, y - h])
    if not terrain.contains(xs, ys).all():
        return math.nan
    zx = terrain.height(np.array([x + h, x - h]), np.array([y, y]))
    zy = terrain.height(np.array([x, x]), np.array([y + h, y - h]))
    return math.degrees(math.atan(math.hypot((zx[0] - zx[1]) / (2 * h), (zy[0] - zy[1]) / (2 * h))))


def drop_points_report(profile: str, terrain) -> None:
    geometry = authume.profile_geometry(profile)
    beyond = authume.crest_offsets(profile)
    print(f"{profile.upper()}: published drop points")
    for k, point in enumerate(authume.drop_points(profile)):
        ground = terrain.height(point[:1], point[1:2])[0]
        crest_xy = point[:2] - beyond[k] * geometry.direction
        crest_z = terrain.height(crest_xy[:1], crest_xy[1:2])[0]
        zone = terrain.sample("zone", point[:1], point[1:2])[0]
        print(
            f"  drop {k}: centre of mass {point[2] - ground:4.1f} m above the ground below "
            f"(zone {zone:.0f}, slope {_slope_deg(terrain, point[0], point[1]):4.1f} deg), "
            f"{beyond[k]:4.2f} m beyond the crest, {point[2] - crest_z:+.2f} m above it"
        )


def early_stops_report(profile: str, rocks: int, scheme: str, seed: int, terrain) -> None:
    run = authume.run_profile(profile, scheme=scheme, n=rocks, seed=seed, workers=2)
    measured = authume.profile_coordinates(profile, authume.measured_endpoints(profile).position)
    limit = 0.5 * float(np.quantile(measured[:, 0], 0.05))
    runout = run.coordinates[:, 0]
    early = np.flatnonzero(runout < limit)
    r = run.releases
    print(
        f"{profile.upper()} {scheme}, {rocks} rocks, seed {seed}, {run.parameters}: run-out p05 "
        f"{np.quantile(runout, 0.05):.1f} m (measured {2 * limit:.1f} m); {early.size} rocks "
        f"({early.size / rocks:.1%}) stop before {limit:.1f} m; by drop point "
        f"{np.bincount(r.drop_id[early], minlength=4).tolist()}; mean mass "
        f"{r.mass[early].mean():.0f} kg (all {r.mass.mean():.0f} kg)"
        if early.size
        else f"{profile.upper()} {scheme}: no rock stops before {limit:.1f} m"
    )
    for k in early:
        x, y = run.stop[k, :2]
        zone = terrain.sample("zone", np.array([x]), np.array([y]))[0]
        volume = r.mass[k] / r.blocks[r.shape_names[r.shape_id[k]]].density
        soil = authume.zone_soil(terrain.soil["zone"], run.parameters.table(volume))
        trajectory = simulate(
            terrain,
            r.rock(int(k)),
            soil,
            r.position[k],
            r.quaternion[k],
            scheme=scheme,
            pgs_tol=PGS_TOL,
            t_max=run.t_max,
        )
        if not np.allclose(trajectory.position[-1], run.stop[k], atol=1e-9):
            raise RuntimeError(f"rock {k}: the single run does not reproduce the ensemble")
        first = int(np.flatnonzero(trajectory.in_contact)[0])
        energy = trajectory.kinetic_energy()
        later = min(first + round(0.5 / trajectory.dt), len(trajectory) - 1)
        at = authume.profile_coordinates(profile, trajectory.position[first : first + 1, :2])
        print(
            f"  rock {k:4d} drop {r.drop_id[k]} {r.shape_names[r.shape_id[k]]} "
            f"{r.mass[k]:5.0f} kg: stops at {runout[k]:5.1f} m (zone {zone:.0f}, slope "
            f"{_slope_deg(terrain, x, y):4.1f} deg) after {run.t_end[k]:4.1f} s; first contact "
            f"at {trajectory.t[first]:.2f} s, {at[0, 0]:5.1f} m, "
            f"{trajectory.n_contacts[first]} vertices, speed "
            f"{np.linalg.norm(trajectory.velocity[first - 1]):4.1f} -> "
            f"{np.linalg.norm(trajectory.velocity[first]):4.1f} m/s, kinetic energy 0.5 s later "
            f"{energy[later] / energy[first - 1]:.0%} of the impact's"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rocks", type=int, default=64)
    parser.add_argument("--scheme", default="implicit", choices=("implicit", "explicit"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", default="both", choices=("both", "p1", "p2"))
    args = parser.parse_args()
    terrain = authume.authume_terrain()
    profiles = authume.PROFILES if args.profile == "both" else (args.profile,)
    for profile in profiles:
        drop_points_report(profile, terrain)
        early_stops_report(profile, args.rocks, args.scheme, args.seed, terrain)


if __name__ == "__main__":
    main()
