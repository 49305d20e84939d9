"""tumble: structure-preserving rigid-body rotation and 3D rockfall simulation."""

__version__ = "0.1.0"
