"""Chunks of an ensemble (tumble.rockfall.ensemble.chunks): a resumed run names the settings that
differ from those its chunks were computed with."""

from tumble.rockfall.ensemble.chunks import describe_differences


def test_resume_differences_are_named():
    before = {"seed": 1, "release": {"height": 1.5}, "rocks": 10}
    now = {"seed": 9, "release": {"height": 2.0}, "rocks": 10}
    text = describe_differences(before, now)
    assert "release.height 1.5 in the chunks, 2.0 now" in text
    assert "seed 1 in the chunks, 9 now" in text
    assert "rocks" not in text
    assert "same settings" in describe_differences(before, before)
