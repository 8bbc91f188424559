"""The About text: Turnscope's version and the versions of the libraries in use."""

from __future__ import annotations

import platform
from importlib import metadata

import duckdb
import numpy
import polars
import pyqtgraph
import PySide6
from PySide6.QtCore import qVersion


def version() -> str:
    """Turnscope's version, from the installed package metadata."""
    try:
        return metadata.version("turnscope")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def about_text() -> str:
    """Plain text for the About box."""
    return "\n".join((
        f"Turnscope {version()}",
        "An inspector of AI-agent session logs: turns, tool-call pairing, audits and "
        "compaction previews.",
        "",
        f"Qt {qVersion()} (PySide6 {PySide6.__version__})",
        f"DuckDB {duckdb.__version__}",
        f"polars {polars.__version__}",
        f"pyqtgraph {pyqtgraph.__version__}",
        f"numpy {numpy.__version__}",
        f"Python {platform.python_version()}",
    ))
