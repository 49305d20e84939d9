"""Local web views on 127.0.0.1: FastAPI servers and three.js pages, nothing fetched at run time.

* the Poinsot view of free rotation: ``tumble serve`` (:mod:`tumble.web.server`); the physics is
  computed by :mod:`tumble.freerot` and the page plays back the trajectories it receives as JSON;
* the 3D view of a finished rockfall run: ``tumble view RUN_DIR`` (:mod:`tumble.web.view`, the
  run folder read by :mod:`tumble.web.run_data`): terrain, raster overlays, trajectories,
  deposits, barriers and the rocks played back as their convex hulls.
"""
