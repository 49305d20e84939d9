"""The DEM's degeneracy check reads the grid in blocks of rows: the same verdict as on the
whole grid, wherever the offending step lies."""

import numpy as np
import pytest

from tumble.rockfall import grid_checks
from tumble.rockfall.grid_checks import NORMAL_LIMIT, degenerate_message


@pytest.mark.parametrize("row", [0, 4, 5, 6, 10, 12])
@pytest.mark.parametrize("axis", [0, 1])
def test_an_overflowing_step_is_found_in_any_block(monkeypatch, row, axis):
    """A height step whose normal component exceeds NORMAL_LIMIT is refused whether it lies
    inside a block of rows, across two blocks or in the last, partial block; the same grid
    without it passes, NaN holes included."""
    monkeypatch.setattr(grid_checks, "CHECK_ROWS", 5)
    heights = np.zeros((13, 7))
    heights[3, 2] = np.nan
    assert degenerate_message(heights, 0.0, 0.0, 1.0, 1.0) is None
    jump = 2.0 * NORMAL_LIMIT
    if axis == 0:
        heights[row:, :] = np.where(
            np.isnan(heights[row:, :]), np.nan, jump
        )  # a step between rows row-1 and row (none for row 0)
    else:
        heights[row, 5:] = jump  # a step between columns 4 and 5 of row ``row``
    message = degenerate_message(heights, 0.0, 0.0, 1.0, 1.0)
    if axis == 0 and row == 0:
        assert message is None  # the whole grid is raised: no step
    else:
        assert message is not None and "too large for its spacing" in message
    # just below the limit (and the cell area) passes
    heights[np.isfinite(heights) & (heights > 0)] = 0.5 * NORMAL_LIMIT
    assert degenerate_message(heights, 0.0, 0.0, 1.0, 1.0) is None
