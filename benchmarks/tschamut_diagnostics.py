"""What decides the held-out Tschamut check: the start, the terrain's micro-relief, or the
dissipation in motion. A diagnostic, not a calibration: it changes one thing at a time on the
check of ``tumble validate tschamut`` (box of the measured lengths and mass, clearance
placement, ``--orientations`` random orientations per run, seed 0, implicit) and prints the
median run-out, its ratio to the measured 101.7 m, the share stopped within 1.4 m and 10 m, the
simulated p05 and the energy-line angles. Nothing it prints selects a parameter of any soil.

Rows (``--rows`` picks some; all by default):

* ``released``: the category as released, the recorded start (the check itself);
* ``relief S``: the proxy terrain resampled bilinearly to 0.5 m cells plus a Gaussian
  micro-relief of standard deviation ``S`` m and correlation length 0.3 m (about the blocks'
  half size; one fixed field, seed 12345): the roughness at the blocks' scale that a 5 m proxy
  surface lacks;
* ``v0 V``: every block started at ``V`` m/s down the fall line of the proxy terrain at its
  release (in motion from its first contact) instead of the recorded start;
* ``coulomb MU``: Coulomb friction ``MU`` (no slippage law) with the category's other fields,
  started at 4 m/s: what a block in motion loses when its friction does not build up.

Each row also runs with ``rolling_resistance = 0`` (``--no-rr`` adds that variant).

    PYTHONPATH=src python benchmarks/tschamut_diagnostics.py --data-dir DIR [--soil medium]
        [--orientations 4] [--rows released,relief,v0,coulomb] [--no-rr]
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Iterator

import numpy as np
from scipy import ndimage

from tumble.rockfall import soil as soil_module
from tumble.rockfall.terrain import Terrain
from tumble.validation.tschamut import data as tschamut_data
from tumble.validation.tschamut import runs

RESAMPLE = 10  # 5 m proxy cells -> 0.5 m
CORRELATION = 0.3  # m
RELIEF = (0.05, 0.1)
SPEEDS = (2.0, 4.0)
COULOMB = (0.45, 0.55)
PROBE = "tschamut_diagnostic"


def micro_relief(terrain: Terrain, sigma: float, length: float = CORRELATION) -> Terrain:
    """The proxy resampled to 0.5 m cells plus a Gaussian field (seed 12345) of standard
    deviation ``sigma`` and correlation length ``length`` (m)."""
    h = terrain.heights
    ny, nx = h.shape
    rows = np.arange((ny - 1) * RESAMPLE + 1) / RESAMPLE
    cols = np.arange((nx - 1) * RESAMPLE + 1) / RESAMPLE
    rr, cc = np.meshgrid(rows, cols, indexing="ij")
    fine = ndimage.map_coordinates(h, [rr, cc], order=1)
    dx = terrain.dx / RESAMPLE
    if sigma > 0.0:
        noise = np.random.default_rng(12345).standard_normal(fine.shape)
        noise = ndimage.gaussian_filter(noise, length / dx)
        fine = fine + noise * (sigma / noise.std())
    return Terrain(np.ascontiguousarray(fine), terrain.x0, terrain.y0, dx, terrain.dy / RESAMPLE)


def probe_category(base: str, **values: float) -> str:
    """A temporary catalogue entry: ``base`` with ``values`` changed (never a released name)."""
    preset = soil_module.CATALOGUE[base]
    probe = dataclasses.replace(preset, values={**preset.values, **values}, sets=(), spread={})
    soil_module.CATALOGUE[PROBE] = probe
    soil_module.PRESETS[PROBE] = probe.values
    return PROBE


def fall_line_start(data: tschamut_data.TschamutData, speed: float):
    """``runs.releases`` with every block started at ``speed`` down the proxy's fall line."""
    original = runs.releases

    def releases(*args, **kwargs):
        states, run_index, orientation, shapes, shape_id = original(*args, **kwargs)
        xy = states.position[:, :2]
        e = 0.5
        t = data.terrain
        gx = (t.height(xy[:, 0] + e, xy[:, 1]) - t.height(xy[:, 0] - e, xy[:, 1])) / (2 * e)
        gy = (t.height(xy[:, 0], xy[:, 1] + e) - t.height(xy[:, 0], xy[:, 1] - e)) / (2 * e)
        down = np.column_stack([-gx, -gy, -(gx**2 + gy**2)])
        down /= np.linalg.norm(down, axis=1)[:, None]
        states = dataclasses.replace(states, velocity=speed * down)
        return states, run_index, orientation, shapes, shape_id

    return releases


def cases(soil: str, rows: list[str], no_rr: bool) -> Iterator[tuple[str, dict, float, float]]:
    """(label, soil overrides, relief sigma, start speed) of every row."""
    variants = [("", {})] + ([(", mu_r 0", {"rolling_resistance": 0.0})] if no_rr else [])
    for suffix, over in variants:
        if "released" in rows:
            yield f"{soil}{suffix}", over, 0.0, 0.0
        if "relief" in rows:
            for s in RELIEF:
                yield f"{soil}{suffix}, relief {s:g} m", over, s, 0.0
        if "v0" in rows:
            for v in SPEEDS:
                yield f"{soil}{suffix}, start {v:g} m/s", over, 0.0, v
        if "coulomb" in rows:
            for mu in COULOMB:
                coulomb = {"mu_min": mu, "mu_max": mu, "kappa": 0.0}
                yield f"Coulomb {mu:g}{suffix}, start 4 m/s", {**over, **coulomb}, 0.0, 4.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--soil", default="medium")
    parser.add_argument("--orientations", type=int, default=4)
    parser.add_argument("--rows", default="released,relief,v0,coulomb")
    parser.add_argument("--no-rr", action="store_true")
    args = parser.parse_args()
    data = tschamut_data.load(args.data_dir)
    original = runs.releases
    print(
        "| row | median (m) | ratio | < 1.4 m | < 10 m | p05 (m) | energy-line p5 / median (deg) |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, over, sigma, speed in cases(args.soil, args.rows.split(","), args.no_rr):
        d = dataclasses.replace(data, terrain=micro_relief(data.terrain, sigma)) if sigma else data
        runs.releases = fall_line_start(d, speed) if speed else original
        category = probe_category(args.soil, **over) if over else args.soil
        run = runs.run_category(d, category, orientations=args.orientations, seed=0)
        m = runs.category_metrics(run, d)
        angle = m["reach_angle"]
        print(
            f"| {label} | {m['median_runout_simulated_m']:.1f} | {m['runout_ratio']:.2f} "
            f"| {m['stopped_within_1.4_m']:.0%} | {m['stopped_within_10_m']:.0%} "
            f"| {m['runout_percentiles_simulated_m']['p5']:.1f} "
            f"| {angle['p5_deg']:.1f} / {angle['median_deg']:.1f} |",
            flush=True,
        )
    runs.releases = original


if __name__ == "__main__":
    main()
