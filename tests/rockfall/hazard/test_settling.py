"""The measures of the signed products between rounds, on small arrays worked by hand, and the
rounds' verdict: settled, nothing to judge, not settled."""

from __future__ import annotations

import numpy as np
import pytest

from tumble.rockfall.hazard.settling import (
    RoundProducts,
    Rounds,
    Settling,
    design_change,
    design_interval,
    line_cells,
    reach_line_moved,
    zone_boundary_moved,
    zone_changed,
)


def area(rows: list[str]) -> np.ndarray:
    return np.array([[c == "#" for c in row] for row in rows])


def test_line_cells_are_the_cells_with_a_neighbour_outside():
    """A 3 x 3 block inside a 5 x 5 grid: its 8 border cells are the line, not its centre; a
    block at the grid's edge has its edge cells on the line."""
    block = area([".....", ".###.", ".###.", ".###.", "....."])
    expected = area([".....", ".###.", ".#.#.", ".###.", "....."])
    assert np.array_equal(line_cells(block), expected)
    assert line_cells(np.ones((3, 3), dtype=bool)).sum() == 8


def test_reach_line_moved_by_hand():
    """Reach areas of the first 3, 4 and 6 columns of a 3 x 8 grid. 3 -> 4 columns: every
    line cell lies within one cell of the other line: 0. 3 -> 6: the first line has 8 cells
    (all but (1, 1)), the second 14 (rows 0 and 2, and (1, 0), (1, 5)); the first line's cells
    are all within one cell of the second's, of the second's (0, 4), (0, 5), (1, 5), (2, 4),
    (2, 5) are farther than one cell from the first's (whose cells stop at column 2): 5 / 22."""
    three = area(["###.....", "###.....", "###....."])
    four = area(
        [
            "####....",
            "####....",
            "####....",
        ]
    )
    six = area(["######..", "######..", "######.."])
    assert reach_line_moved(three, four) == 0.0
    assert line_cells(three).sum() == 8 and line_cells(six).sum() == 14
    assert reach_line_moved(three, six) == pytest.approx(5 / 22)
    assert reach_line_moved(six, three) == pytest.approx(5 / 22)  # symmetric
    empty = np.zeros((3, 8), dtype=bool)
    assert reach_line_moved(empty, empty) is None
    assert reach_line_moved(empty, three) == 1.0  # a line where there was none moved all


def test_zone_changed_share_by_hand():
    """Zones of 6 cells: zoned in either round 5 of them (the 0 -> 0 cell does not count), of
    which 2 changed (1 -> 2 and 0 -> 1): 2 / 5; no zoned cell: None."""
    before = np.array([[0, 1, 1], [2, 3, 0]], dtype=np.uint8)
    after = np.array([[0, 2, 1], [2, 3, 1]], dtype=np.uint8)
    assert zone_changed(before, after) == pytest.approx(2 / 5)
    assert zone_changed(np.zeros((2, 2)), np.zeros((2, 2))) is None


def test_zone_boundary_moved_by_hand():
    """A red band of two columns and a blue band beside it, the boundary shifted by one cell in
    the second round: every cell of each zone lies within one cell of the same zone in the
    other round, so nothing moved (``zone_changed`` counts the 4 flipped cells of the 24
    zoned). Shifted by two cells, the cells beyond one cell of their zone in the other round are
    counted (comments below); a zone that reappears far away moved whole."""
    before = np.array([[3, 3, 2, 2, 2, 2]] * 4, dtype=np.uint8)
    one = np.array([[3, 3, 3, 2, 2, 2]] * 4, dtype=np.uint8)
    assert zone_boundary_moved(before, one) == 0.0
    assert zone_changed(before, one) == pytest.approx(4 / 24)
    two = np.array([[3, 3, 3, 3, 2, 2]] * 4, dtype=np.uint8)
    # red: before columns 0-1, after 0-3; after's column 3 is 2 cells from before's red (4
    # cells); blue: before columns 2-5, after 4-5; before's column 2 is 2 cells from after's
    # blue (4 cells); of 24 + 24 zoned cells
    assert zone_boundary_moved(before, two) == pytest.approx(8 / 48)
    # a zone that appears far from where it was: every cell of it moved
    far = np.zeros((4, 8), dtype=np.uint8)
    far[:, :2] = 1
    moved = np.zeros((4, 8), dtype=np.uint8)
    moved[:, 6:] = 1
    assert zone_boundary_moved(far, moved) == 1.0
    assert zone_boundary_moved(np.zeros((2, 2)), np.zeros((2, 2))) is None


def test_zone_boundaries_are_judged_by_default_and_settle_on_a_one_cell_jitter():
    """The default products judge the zones' boundaries, not every flipped cell: a band whose
    boundary jitters by one cell between rounds settles from round 2."""
    assert Settling().judge == ("reach_line", "zone_boundaries", "design")
    reach = area(["######", "######", "######", "######"])
    a = np.array([[3, 3, 2, 2, 2, 2]] * 4, dtype=np.uint8)
    b = np.array([[3, 3, 3, 2, 2, 2]] * 4, dtype=np.uint8)
    rounds = Rounds(Settling(judge=("zone_boundaries", "zones")))
    for rocks, zone in ((200, a), (400, b), (800, a)):
        rounds.add(products(rocks, reach, zone=zone))
    record = rounds.record(6400)
    assert record["products"]["zone_boundaries"]["round"] == 2
    assert record["products"]["zones"]["converged"] is False  # 4 of 24 flip each round
    assert record["products"]["zone_boundaries"]["threshold"] == 0.1


def barrier(name, e95, h95, v_d, h_d):
    return {
        "name": name,
        "kinetic_energy_kJ": {"p95": e95},
        "passing_height_m": {"p95": h95},
        "design": {"v_d_ms": v_d, "h_d_m": h_d},
    }


def test_design_change_is_the_largest_relative_change_by_hand():
    """Two lines: the largest relative change is h_d of line B, |1.2 - 1.0| / 1.2 = 1/6; a
    line first crossed gives infinity; no barrier values: None."""
    before = [barrier("A", 100.0, 1.0, 150.0, 1.3), barrier("B", 50.0, 0.8, 70.0, 1.0)]
    after = [barrier("A", 104.0, 1.0, 150.0, 1.3), barrier("B", 50.0, 0.8, 70.0, 1.2)]
    assert design_change(before, after) == pytest.approx(0.2 / 1.2)
    assert design_change(before[:1], after) == float("inf")
    assert design_change(before, None) is None
    assert design_change(None, [barrier("A", None, None, None, None)]) is None


def test_design_interval_is_the_widest_relative_half_width_by_hand():
    """E95 100 kJ [90, 110]: 0.1; v_d 20 m/s [19, 21]: 0.05; h_d 2 m [1.9, 2.3]: 0.1 on line A,
    E95 50 kJ [40, 70] on line B: 0.3, the widest; no interval: None; a value of 0 with a
    width: infinite; the judged product needs no round before."""
    a = {
        "name": "A",
        "kinetic_energy_kJ": {"p95": 100.0, "p95_ci": [90.0, 110.0]},
        "design": {"v_d_ms": 20.0, "v_d_ci_ms": [19.0, 21.0], "h_d_m": 2.0, "h_d_ci_m": [1.9, 2.3]},
    }
    b = {"name": "B", "kinetic_energy_kJ": {"p95": 50.0, "p95_ci": [40.0, 70.0]}}
    assert design_interval([a]) == pytest.approx(0.1)
    assert design_interval([a, b]) == pytest.approx(0.3)
    assert design_interval([{"name": "C", "kinetic_energy_kJ": {"p95": 5.0}}]) is None
    assert design_interval(None) is None
    zero = {"name": "D", "kinetic_energy_kJ": {"p95": 0.0, "p95_ci": [0.0, 1.0]}}
    assert design_interval([zero]) == float("inf")
    unknown = {"name": "E", "kinetic_energy_kJ": {"p95": 5.0, "p95_ci": [float("nan"), 6.0]}}
    assert design_interval([a, unknown]) == float("inf")
    rounds = Rounds(Settling(judge=("design_intervals",), design_interval=0.2))
    rounds.add(products(200, area(["#"]), barriers=[a, b]))
    assert not rounds.done  # 0.3 > 0.2
    rounds.add(products(400, area(["#"]), barriers=[a]))
    assert rounds.done
    assert rounds.record(800)["products"]["design_intervals"]["round"] == 2


def products(rocks, reach, zone=None, barriers=None, cells=(0, 0)):
    return RoundProducts(
        rocks=rocks,
        reach=reach,
        zone=zone,
        barriers=barriers,
        cells={"cells": cells[0], "cells_converged": cells[1]},
    )


def test_rounds_settle_and_name_the_round_of_each_product():
    """The reach line settles from round 2 (the same area), the design values from round 3
    (10 % change, then 1 %); the run may stop at round 3, and the record names both."""
    three = area(["###.....", "###.....", "###....."])
    rounds = Rounds(Settling(judge=("reach_line", "design"), design_change=0.05))
    rounds.add(products(200, three, barriers=[barrier("A", 100.0, 1.0, 150.0, 1.0)]))
    assert not rounds.done
    rounds.add(products(400, three, barriers=[barrier("A", 110.0, 1.0, 150.0, 1.0)]))
    assert not rounds.done
    rounds.add(products(800, three, barriers=[barrier("A", 111.0, 1.0, 150.0, 1.0)]))
    assert rounds.done
    record = rounds.record(6400)
    assert record["converged"] is True
    assert record["products"]["reach_line"]["round"] == 2
    assert record["products"]["reach_line"]["rocks"] == 400
    assert record["products"]["design"]["round"] == 3
    assert record["verdict"] == (
        "converged at round 3 (800 rocks): reach_line at round 2 (400 rocks), design at round 3 "
        "(800 rocks)"
    )
    assert [m["rocks"] for m in record["measures"]] == [200, 400, 800]


def test_nothing_to_judge_stops_at_the_first_round_with_a_sentence():
    """No cell reaches the probabilities, no zoning, no barrier: nothing is judged, the run may
    stop after its first round, converged is None (no failure) and the verdict says why."""
    empty = np.zeros((4, 4), dtype=bool)
    rounds = Rounds(Settling(judge=("reach_line", "zones", "design", "cells")))
    rounds.add(products(200, empty))
    assert rounds.done
    record = rounds.record(6400)
    assert record["converged"] is None
    assert record["verdict"].startswith("nothing to judge (reach_line: no cell has a reach")
    assert "the run ended at round 1 (200 rocks)" in record["verdict"]
    assert all(not p["judged"] for p in record["products"].values())


def test_a_product_not_settled_is_named():
    """The per-cell criterion with 3 of 10 cells converged does not settle: it is named with
    its measure (0.7 of the cells not converged) and the threshold 0."""
    reach = area(["##", "##"])
    rounds = Rounds(Settling(judge=("cells",)))
    rounds.add(products(200, reach, cells=(10, 3)))
    assert not rounds.done
    record = rounds.record(200)
    assert record["converged"] is False
    assert record["verdict"] == (
        "not converged within convergence.max_rocks = 200 (200 rocks, 1 rounds): cells (0.7 > 0)"
    )
