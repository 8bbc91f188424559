"""A report as Markdown: tables, the turn trees as indented code blocks (nothing in them is
interpreted); every text from a log made visible, with ``<``, ``&``, ``|`` and backticks
escaped outside code so that no renderer reads them as markup."""

from __future__ import annotations

import base64
from typing import TextIO

from explorer.providers import LABELS
from explorer.report.content import FINDINGS_LIMIT, TREE_LIMIT, Report, SweepPart
from explorer.report.sweep_figures import sweep_svgs
from explorer.text_escape import visible


def _t(value) -> str:
    """A value from a log, as Markdown text (one line)."""
    text = visible("" if value is None else str(value)).replace("\n", " ")
    for ch, esc in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "\\|"),
                    ("`", "\\`"), ("*", "\\*"), ("_", "\\_"), ("[", "\\["), ("]", "\\]")):
        text = text.replace(ch, esc)
    return text


def write(fh: TextIO, report: Report) -> None:
    """Write the report."""
    out = ["# Turnscope report", "", "Read: " + ", ".join(_t(s) for s in report.sources), "",
           "## Audit", "", "| count | value |", "|---|---:|"]
    out += [f"| {_t(k)} | {v:,} |" for k, v in report.counts.items()]
    out.append("")
    if report.sweep is not None:   # the corpus's, beside its audit table
        out += _sweep(report.sweep)
    out += ["## Findings by rule", ""]
    if not report.findings:
        out.append("No findings.")
    for rule, found in report.findings.items():
        out += [f"### {_t(rule)} ({len(found):,})", "", _t(report.rule_text.get(rule)), "",
                "| session | events (seq.sub kind call id) |", "|---|---|"]
        for f in found[:FINDINGS_LIMIT]:
            events = "; ".join(f"{e.get('seq')}.{e.get('sub')} {e.get('kind')} "
                               f"{e.get('call_id') or ''}".strip() for e in f["events"])
            out.append(f"| {_t(f['session_id'])} | {_t(events)} |")
        if len(found) > FINDINGS_LIMIT:
            out.append(f"\n… and {len(found) - FINDINGS_LIMIT:,} more.")
        out.append("")
    for part in report.sessions:
        out += [f"## Session {_t(part.session_id)}", "", f"{part.events:,} events.", "",
                "### Provider check (the whole log)", ""]
        out += _verdicts(part.verdicts)
        if part.view:
            v = part.view
            out += ["", f"### View: {_t(v.strategy)} at {v.budget:,} tokens", "",
                    (f"{v.kept:,} of {part.events:,} events kept, cost {v.cost:,} tokens, "
                     f"{v.placeholders:,} placeholder results."), ""]
            out += _verdicts(v.verdicts)
        peak = part.costs[-1] if part.costs else 0
        out += ["", f"Cost of the whole session: {peak:,} estimated tokens.", "",
                "### Turn tree", ""]
        for line in part.tree:
            marks = f"  [{', '.join(line.marks)}]" if line.marks else ""
            call = f" {visible(line.call_id)}" if line.call_id else ""
            out_of_view = "" if line.in_view else "(out) "
            out.append("    " + out_of_view + "    " * line.depth
                       + f"{line.seq}.{line.sub} {line.kind}{call}  {visible(line.text)}{marks}")
        if part.events > TREE_LIMIT:
            out.append(f"    … and {part.events - TREE_LIMIT:,} more events")
        out.append("")
    fh.write("\n".join(out) + "\n")


def _sweep(part: SweepPart) -> list[str]:
    """The corpus sweep: what it ran, and the panel's plots as SVG images in the file (data
    URIs: the file stays self-contained)."""
    windows = part.rows[0]["windows"] if part.rows else 0
    out = ["## Corpus sweep", "",
           (f"Strategies {_t(', '.join(part.strategies))} over {len(part.budgets):,} budgets "
            f"({part.budgets[0]:,} to {part.budgets[-1]:,} tokens), {windows:,} windows each; "
            f"every window checked against "
            f"{_t(', '.join(LABELS[p] for p in part.providers))}."), ""]
    for title, svg in sweep_svgs(part):
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        out += [f"![{_t(title)}](data:image/svg+xml;base64,{data})", ""]
    return out


def _verdicts(verdicts) -> list[str]:
    out = ["| provider | verdict |", "|---|---|"]
    for provider, vs in verdicts.items():
        verdict = "accepted" if not vs else "rejected: " + "; ".join(
            f"{_t(v.rule)}: {_t(v.text)}" for v in vs)
        out.append(f"| {_t(LABELS[provider])} | {verdict} |")
    return out
