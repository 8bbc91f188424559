"""A report as one HTML file: inline CSS, plots as inline SVG, no script; every text from
a log made visible and HTML-escaped."""

from __future__ import annotations

from html import escape
from typing import TextIO

from explorer.providers import LABELS
from explorer.report.content import FINDINGS_LIMIT, TREE_LIMIT, Report, SweepPart
from explorer.report.svg import line_plot
from explorer.report.sweep_figures import sweep_svgs
from explorer.text_escape import visible

_CSS = """body{font-family:sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;
text-align:left}td.n{text-align:right}pre{background:#f6f6f6;padding:.5em;overflow-x:auto;
font-size:12px}.mark{color:#b00}.ok{color:#080}.out{color:#999}.bad{color:#b00}h2{border-bottom:1px solid #ccc}
figure{display:inline-block;margin:.3em}"""


def _t(value) -> str:
    """A value from a log, as HTML text."""
    return escape(visible("" if value is None else str(value)))


def write(fh: TextIO, report: Report) -> None:
    """Write the report."""
    out = ['<!DOCTYPE html><html><head><meta charset="utf-8">',
           "<title>Turnscope report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>Turnscope report</h1>",
           "<p>Read: " + ", ".join(_t(s) for s in report.sources) + "</p>",
           "<h2>Audit</h2><table><tr><th>count</th><th>value</th></tr>"]
    out += [f'<tr><td>{_t(k)}</td><td class="n">{v:,}</td></tr>'
            for k, v in report.counts.items()]
    out.append("</table>")
    if report.sweep is not None:   # the corpus's, beside its audit table
        out += _sweep(report.sweep)
    out.append("<h2>Findings by rule</h2>")
    if not report.findings:
        out.append("<p>No findings.</p>")
    for rule, found in report.findings.items():
        out.append(f"<h3>{_t(rule)} ({len(found):,})</h3><p>{_t(report.rule_text.get(rule))}"
                   "</p><table><tr><th>session</th><th>events (seq.sub kind call id)</th></tr>")
        for f in found[:FINDINGS_LIMIT]:
            events = "; ".join(f"{e.get('seq')}.{e.get('sub')} {e.get('kind')} "
                               f"{e.get('call_id') or ''}".strip() for e in f["events"])
            out.append(f"<tr><td>{_t(f['session_id'])}</td><td>{_t(events)}</td></tr>")
        out.append("</table>")
        if len(found) > FINDINGS_LIMIT:
            out.append(f"<p>… and {len(found) - FINDINGS_LIMIT:,} more.</p>")
    for part in report.sessions:
        out.append(f"<h2>Session {_t(part.session_id)}</h2><p>{part.events:,} events.</p>")
        out.append("<h3>Provider check (the whole log)</h3>")
        out += _verdicts(part.verdicts)
        if part.view:
            v = part.view
            out.append(f"<h3>View: {_t(v.strategy)} at {v.budget:,} tokens</h3><p>{v.kept:,} "
                       f"of {part.events:,} events kept, cost {v.cost:,} tokens, "
                       f"{v.placeholders:,} placeholder results.</p>")
            out += _verdicts(v.verdicts)
        out.append("<h3>Cost</h3>")
        out.append(line_plot(part.costs, "running cost (estimated tokens)", "events", "tokens"))
        out.append("<h3>Turn tree</h3><pre>")
        for line in part.tree:
            marks = (f' <span class="mark">[{_t(", ".join(line.marks))}]</span>'
                     if line.marks else "")
            call = f" {_t(line.call_id)}" if line.call_id else ""
            out_of_view = "" if line.in_view else '<span class="out">(out)</span> '
            out.append(f"{out_of_view}{'    ' * line.depth}{line.seq}.{line.sub} "
                       f"{_t(line.kind)}{call}  {_t(line.text)}{marks}")
        if part.events > TREE_LIMIT:
            out.append(f"… and {part.events - TREE_LIMIT:,} more events")
        out.append("</pre>")
    out.append("</body></html>")
    fh.write("\n".join(out) + "\n")


def _sweep(part: SweepPart) -> list[str]:
    """The corpus sweep: what it ran, and the panel's plots."""
    windows = part.rows[0]["windows"] if part.rows else 0
    out = ["<h2>Corpus sweep</h2>",
           (f"<p>Strategies {_t(', '.join(part.strategies))} over {len(part.budgets):,} "
            f"budgets ({part.budgets[0]:,} to {part.budgets[-1]:,} tokens), {windows:,} "
            f"windows each; every window checked against "
            f"{_t(', '.join(LABELS[p] for p in part.providers))}.</p>"),
           '<div class="plots">']
    out += [f"<figure>{svg}</figure>" for _title, svg in sweep_svgs(part)]
    out.append("</div>")
    return out


def _verdicts(verdicts) -> list[str]:
    out = ["<table><tr><th>provider</th><th>verdict</th></tr>"]
    for provider, vs in verdicts.items():
        verdict = ('<span class="ok">accepted</span>' if not vs else
                   '<span class="bad">rejected</span>: ' +
                   "<br>".join(f"{_t(v.rule)}: {_t(v.text)}" for v in vs))
        out.append(f"<tr><td>{_t(LABELS[provider])}</td><td>{verdict}</td></tr>")
    out.append("</table>")
    return out
