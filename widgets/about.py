"""The About text: Turnscope's version and the versions of the libraries in use."""

from __future__ import annotations

import platform

import duckdb
import numpy
import polars
import pyqtgraph
import PySide6
from PySide6.QtCore import qVersion

from explorer.version import version


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
