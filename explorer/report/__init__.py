"""Reports (issue 20): what Turnscope found, in one self-contained file people can share.

:func:`explorer.report.content.build` gathers it (the corpus audit table, the findings by
rule, per session the turn tree as text with its marks, the provider check and the cost
curve); :mod:`explorer.report.html` and :mod:`explorer.report.markdown` write it. Every log
text is made visible (explorer.text_escape) and escaped for the format: a report of a
hostile log is as safe as the window. Plots are SVG written here (no Qt in the core).
"""

from __future__ import annotations

from explorer.report import html, markdown
from explorer.report.content import Report, build

#: The report formats by ``--format`` name.
FORMATS = {"html": html, "md": markdown}

__all__ = ["FORMATS", "Report", "build"]
