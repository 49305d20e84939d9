"""Files in and out: result directories written atomically, tables, provenance."""

from tumble.io.provenance import provenance
from tumble.io.results import ResultDir, write_csv

__all__ = ["ResultDir", "provenance", "write_csv"]
