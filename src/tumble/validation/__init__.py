"""Reproductions: the numerical examples of the seed papers and the field tests, recomputed.

The engine (:mod:`tumble.freerot`, :mod:`tumble.stability`, :mod:`tumble.rockfall`) is used here
as any user would use it; a paper's published numbers and a site's own data live in this package.

* :mod:`tumble.validation.reproduction`: the record of a reproduction (figures, tables, notes)
  and its text summary;
* :mod:`tumble.validation.leine2021`: Leine et al. 2021, section 4.3 (Fig. 2-4, the Lyapunov
  function, one-step spectra);
* :mod:`tumble.validation.betsch2009`: Betsch & Siebert 2009, section 5 (free body, heavy top);
* :mod:`tumble.validation.slope40`: the published ensemble numbers of Leine et al. 2021,
  section 6, on the ``slope40`` scenario, and their comparison with two runs;
* :mod:`tumble.validation.authume`: the Authume quarry full-scale rockfall tests: field data,
  terrain, releases, per-zone soils, profile runs, metrics and calibration.
* :mod:`tumble.validation.tschamut`: the Tschamut 2014 tests (data not shipped), a held-out check
  of the soil categories, never tuned on.
"""
