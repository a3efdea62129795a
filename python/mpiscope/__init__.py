"""mpiscope's results in Python: ``mpiscope.load(DIR)`` gives a run whose
tables are pandas DataFrames (functions, callsites, per_rank, message_sizes,
matrix, io, mpit, findings, waitstates, pop, critical_path, ...);
``mpiscope.load_many([...])`` several runs; ``mpiscope.hatchet`` converts to
Hatchet and Thicket. See docs/python.md."""

from importlib import metadata as _metadata

from .run import Run, Runs, load, load_many
from .stacks import folded, site_path

try:
    __version__ = _metadata.version("mpiscope")
except _metadata.PackageNotFoundError:  # imported from the source tree
    __version__ = "0+unknown"

__all__ = ["Run", "Runs", "load", "load_many", "folded", "site_path", "__version__"]
