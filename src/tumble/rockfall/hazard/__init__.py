"""Hazard products, computed from an ensemble's results after the run: barrier statistics and
design values (``design``: UNI 11211-4, ONR 24810), hazard zoning from the per-source exceedance
counts (``zoning``), and the tables per release source and rock class (``sources``). Nothing here
runs inside a chunk, and nothing reads a site input (import contracts in ``pyproject.toml``)."""
