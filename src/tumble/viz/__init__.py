"""Figures (matplotlib): reads results and the API, holds no physics."""
