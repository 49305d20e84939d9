"""How full a SIMD batch of contact steps can be: the contact steps a team of rocks offers at
once, and what the spread of their Gauss-Seidel work costs a batch.

Contact steps could run in SIMD lanes only side by side: the contact steps of one team step
belong to different rocks and are independent, while a rock's next step needs this one. So what
a batch of ``LANES`` (8) contact steps can hold is the number of the team's rocks in contact at
the same team step. This script takes real trajectories (the states of
:func:`contact_step.saved_states`: ``--rocks`` EOTA221 rocks on ``slope40``, each step's
closed contacts and Gauss-Seidel sweeps from :func:`contact_step.time_steps`), and replays the
team's schedule of :func:`tumble.rockfall.ensemble.teams.run_team` for teams of ``--widths``
rocks: a lane takes the next rock as soon as its rock ends, and each chunk of ``--chunk`` rocks
is shared by ``--threads`` teams (rock ``k`` of a chunk follows trajectory ``k mod --rocks``).
It prints, for each width:

* the rocks active and in contact at a team step (means over team steps);
* the occupancy of the batches: contact steps over ``8 x`` the batches of 8 they fill, each team
  step's contact steps cut into ``ceil(n / 8)`` batches;
* the efficiency of a Gauss-Seidel solution in lanes that runs every lane of a batch until the
  last converges, over its largest number of contacts ("GS in step"): the work of the steps
  (closed contacts x sweeps, summed) over ``8 x`` the work of the batches (their largest
  closed contacts x their largest sweeps, summed);
* at most the efficiency of lanes that each take the team step's next contact problem as soon
  as theirs has converged ("GS refilled"): the work over ``8 x`` the sum over team steps of the
  larger of the step's largest problem and an eighth of its work (no schedule ends sooner);
* the efficiency of batches run in step for their first ``--cap`` sweeps only ("GS first"),
  the rest of a slow solution left to the scalar solver, and the share of the work so left.

Nothing here is timed; the figures are counts of the run's own steps.

    python benchmarks/contact_batches.py [--rocks 20] [--widths 8,16,32,48,64] [--chunk 200]
        [--threads 2] [--cap 2] [--states FILE]
"""

from __future__ import annotations

import argparse
import heapq
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contact_step import saved_states, time_steps

LANES = 8


def rock_steps(rocks: int, states_file: str | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per rock, its steps' closed contacts and sweeps (a contact step has closed > 0)."""
    model, states, follows, _, _ = saved_states(rocks, "implicit", 1, states_file)
    closed, sweeps = time_steps(model, states, follows, 1)
    starts = np.flatnonzero(~follows)
    ends = np.r_[starts[1:], len(states)]
    return [(closed[a:b], sweeps[a:b]) for a, b in zip(starts, ends, strict=True)]


def team_schedule(
    rocks: list[tuple[np.ndarray, np.ndarray]], n: int, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The team steps of ``n`` rocks (rock k follows ``rocks[k % len(rocks)]``) run by a team
    of ``width`` lanes as ``run_team`` schedules them; returns per team step the active lanes,
    and per lane and team step the closed contacts and sweeps of its step (0 for none)."""
    free = [(0, lane) for lane in range(min(width, n))]
    heapq.heapify(free)
    placed = []  # (lane, first team step, rock)
    for k in range(n):
        start, lane = heapq.heappop(free)
        placed.append((lane, start, k % len(rocks)))
        heapq.heappush(free, (start + len(rocks[k % len(rocks)][0]), lane))
    total = max(start + len(rocks[r][0]) for _, start, r in placed)
    closed = np.zeros((width, total))
    sweeps = np.zeros((width, total))
    active = np.zeros(total)
    for lane, start, r in placed:
        c, s = rocks[r]
        closed[lane, start : start + len(c)] = c
        sweeps[lane, start : start + len(c)] = s
        active[start : start + len(c)] += 1
    return active, closed, sweeps


def batch_figures(
    closed: np.ndarray, sweeps: np.ndarray, cap: int
) -> tuple[float, float, float, float, float]:
    """(contact lanes a team step, batch occupancy, Gauss-Seidel efficiency of batches run in
    step, at most that of lanes refilled, that of batches run in step for at most ``cap``
    sweeps) of a schedule."""
    in_contact = closed > 0
    per_step = in_contact.sum(axis=0)
    batches = np.ceil(per_step / LANES)
    occupancy = per_step.sum() / (LANES * batches.sum())
    work = batch_work = span = capped = capped_work = 0.0
    for t in np.flatnonzero(per_step):
        lanes = np.flatnonzero(in_contact[:, t])
        c = closed[lanes, t]
        s = sweeps[lanes, t]
        w = c * s
        work += float(w.sum())
        first = np.minimum(s, cap)
        capped += float(np.dot(c, first))
        for b in range(0, len(lanes), LANES):
            batch_work += LANES * float(c[b : b + LANES].max() * s[b : b + LANES].max())
            capped_work += LANES * float(c[b : b + LANES].max() * first[b : b + LANES].max())
        # lanes that take the next contact problem as soon as theirs converges: no schedule of
        # the step's problems on 8 lanes ends before its largest problem nor before an even share
        span += max(float(w.max()), float(w.sum()) / LANES)
    return (
        float(per_step.mean()),
        float(occupancy),
        work / batch_work,
        work / (LANES * span),
        capped / capped_work,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=20)
    parser.add_argument("--widths", default="8,16,32,48,64")
    parser.add_argument("--chunk", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cap", type=int, default=2, help="sweeps a batch takes in lanes")
    parser.add_argument("--states", metavar="FILE", help="save the states to / read them from FILE")
    args = parser.parse_args()
    rocks = rock_steps(args.rocks, args.states)
    steps = sum(len(c) for c, _ in rocks)
    contact = sum(int((c > 0).sum()) for c, _ in rocks)
    print(
        f"slope40, implicit, {args.rocks} trajectories: {steps} steps, {contact / steps:.1%} "
        f"contact steps; teams of a chunk of {args.chunk} rocks on {args.threads} threads "
        f"({math.ceil(args.chunk / args.threads)} rocks a team)"
    )
    closed = np.concatenate([c for c, _ in rocks])
    sweeps = np.concatenate([s for _, s in rocks])
    touch = closed > 0
    work = closed[touch] * sweeps[touch]
    long = sweeps[touch] > 10
    beyond = np.maximum(sweeps[touch] - args.cap, 0.0) * closed[touch]
    print(
        f"per contact step: sweeps <= 2 in {np.mean(sweeps[touch] <= 2):.1%}, more than 10 in "
        f"{np.mean(long):.2%}, which hold {work[long].sum() / work.sum():.1%} of the "
        f"Gauss-Seidel work (closed contacts x sweeps); largest {sweeps.max():.0f} sweeps; "
        f"the sweeps beyond the first {args.cap} hold {beyond.sum() / work.sum():.1%}"
    )
    print(
        f"{'width':>6}{'active':>9}{'in contact':>12}{'occupancy':>11}"
        f"{'GS in step':>12}{'GS refilled':>13}{f'GS first {args.cap}':>12}"
    )
    per_team = math.ceil(args.chunk / args.threads)
    for width in (int(w) for w in args.widths.split(",")):
        active, closed, sweeps = team_schedule(rocks, per_team, width)
        lanes, occupancy, in_step, refilled, first = batch_figures(closed, sweeps, args.cap)
        print(
            f"{width:6d}{active.mean():9.2f}{lanes:12.2f}{occupancy:11.1%}{in_step:12.1%}"
            f"{refilled:13.1%}{first:12.1%}"
        )


if __name__ == "__main__":
    main()
