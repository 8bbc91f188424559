"""A report's corpus sweep (issue 20): the sweep panel's plots as inline SVG, drawn from the
figures ``sweep --json`` gives, and those rows as CSV (``report --sweep-csv``)."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET

from explorer.cli.main import main
from explorer.compaction.sweep_plots import BUDGETS, CHECKED, PLOTS
from explorer.report.svg import sweep_plot
from tests.test_repair import FULL

SVG = "{http://www.w3.org/2000/svg}"


def _svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", html, re.DOTALL)]


def test_the_report_plots_and_writes_the_sweep_of_the_sweep_command(tmp_path, capsys):
    out, rows_csv = tmp_path / "r.html", tmp_path / "sweep.csv"
    assert main(["report", str(FULL), "--format", "html", str(out),
                 "--sweep-csv", str(rows_csv)]) == 0
    capsys.readouterr()
    assert main(["sweep", str(FULL), "--json", "--provider", "all",
                 "--strategies", ",".join(CHECKED),
                 "--budgets", ",".join(map(str, BUDGETS))]) == 0
    want = json.loads(capsys.readouterr().out)
    with open(rows_csv, newline="", encoding="utf-8") as fh:
        got = list(csv.DictReader(fh))
    assert len(got) == len(want) == len(CHECKED) * len(BUDGETS)
    for row, expected in zip(got, want):
        assert set(row) == set(expected)
        for key, value in expected.items():
            assert (float(row[key]) == round(value, 6) if isinstance(value, float)
                    else row[key] == str(value)), key
    html = out.read_text(encoding="utf-8")
    assert "<h2>Corpus sweep</h2>" in html and "<script" not in html
    titles = [svg.get("aria-label") for svg in _svgs(html)]
    sweep_titles = [t for t, _, _ in PLOTS] + ["rejected by the provider ÷ windows"]
    assert [t for t in titles if t in sweep_titles] == sweep_titles
    first = next(svg for svg in _svgs(html) if svg.get("aria-label") == PLOTS[0][0])
    curves = first.findall(f"{SVG}polyline")
    assert len(curves) == len(CHECKED)   # a curve per strategy, each point drawn
    assert len(first.findall(f"{SVG}circle")) == len(CHECKED) * len(BUDGETS)
    texts = [t.text for t in first.iter(f"{SVG}text")]
    assert all(s in texts for s in CHECKED)   # the legend names every strategy


def test_a_sweep_plot_puts_its_points_on_log_budget_and_value_axes():
    svg = ET.fromstring(sweep_plot("t", [("M0", "#000", "", [100, 1000, 10000], [0, 0.5, 1])],
                                   width=300, height=200))
    points = [tuple(map(float, p.split(","))) for p in
              svg.find(f"{SVG}polyline").get("points").split()]
    rect = svg.find(f"{SVG}rect")
    left, top = float(rect.get("x")), float(rect.get("y"))
    w, h = float(rect.get("width")), float(rect.get("height"))
    assert [round(x - left, 1) for x, _ in points] == [0, round(w / 2, 1), round(w, 1)]
    assert [round(top + h - y, 1) for _, y in points] == [0, round(h / 2, 1), round(h, 1)]
    log = ET.fromstring(sweep_plot("t", [("M0", "#000", "", [100, 1000, 10000], [0.01, 0, 1])],
                                   log_y=True))
    assert len(log.findall(f"{SVG}circle")) == 2   # no place for 0 on a log axis
