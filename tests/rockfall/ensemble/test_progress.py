"""Progress of an ensemble (tumble.rockfall.ensemble.progress): lines with the rate and the time
left, on a fake clock."""

import io

from tumble.rockfall.ensemble.progress import Progress


def test_progress_lines_with_rate_and_time_left():
    """Off a terminal: a line at most every 10 s of a (fake) clock, with the session's
    rock-steps/s and the time left at its pace, and one line at the end."""
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(100, 20, "lines", stream=stream, every=10.0, clock=lambda: now[0])
    now[0] = 4.0
    progress.update(10, 4_000_000)  # 4 s: no line yet
    assert stream.getvalue() == ""
    now[0] = 12.0
    progress.update(20, 8_000_000)  # 12 s, 30 rocks in 12 s, 50 left: 20 s
    assert stream.getvalue() == "rocks 50/100 (50 %), 1.00 M rock-steps/s, about 20 s left\n"
    now[0] = 30.0
    progress.update(50, 18_000_000)
    progress.close()
    assert stream.getvalue().splitlines()[-1] == "rocks 100/100 (100 %), 1.00 M rock-steps/s"


def test_work_added_on_the_way_counts_in_the_total_and_the_time_left():
    """grow(n): the total becomes total + n, the time left is that of the larger total at the
    pace so far (10 rocks in 10 s, 30 left of 40: 30 s), and the bar (a terminal) follows."""
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(20, 0, "lines", stream=stream, every=10.0, clock=lambda: now[0])
    progress.grow(20)
    now[0] = 10.0
    progress.update(10)
    assert stream.getvalue() == "rocks 10/40 (25 %), about 30 s left\n"
    bar = Progress(5, 0, "bar", stream=io.StringIO())
    bar.grow(3)
    assert bar.total == 8 and bar.bar.total == 8
    bar.close()
