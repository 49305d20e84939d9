"""``tumble rockfall calibrate``: the soil of a site back-calculated from observed blocks
(:mod:`.search`), their rocks and releases (:mod:`.blocks`), the scores (:mod:`.scores`) and
the files written (:mod:`.files`)."""
