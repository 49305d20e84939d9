"""The Poinsot view: a local FastAPI server and a three.js page of free rotation.

``tumble serve`` (or ``python -m tumble.web.server``) starts it on 127.0.0.1; the physics is
computed by :mod:`tumble.freerot` and the page plays back the trajectories it receives as JSON.
"""
