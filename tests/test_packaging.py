"""The desktop packaging of packaging/: the bundle built and run, the desktop entry, the
AppStream metainfo, the icons, and the versions the About box shows."""

from __future__ import annotations

import configparser
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from tests.helpers import demo_counts, png_size

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
DEMO_MAIN = ROOT / "sample_data" / "demo_main.jsonl.gz"
APP_ID = "io.github.turnscope.Turnscope"


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(PACKAGING / "turnscope.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_entry_has_what_a_menu_needs():
    entry = _desktop_entry()
    assert entry["Type"] == "Application" and entry["Name"] == "Turnscope"
    assert entry["Exec"].split()[0] == "turnscope"
    assert entry["Icon"] == "turnscope" and entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";") and "Development" in entry["Categories"]


def test_metainfo_names_the_entry_the_version_and_a_kept_screenshot():
    root = ET.parse(PACKAGING / f"{APP_ID}.metainfo.xml").getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == f"{APP_ID}.desktop"
    assert root.find("provides/binary").text == "turnscope"
    assert root.findtext("project_license") == metadata.metadata("turnscope")["License"]
    assert [r.get("version") for r in root.iter("release")][0] == metadata.version("turnscope")
    image = root.find("screenshots/screenshot/image").text
    assert png_size(ROOT / image)[0] >= 1000   # the image is kept in the repository


def test_icons_are_the_svg_rendered_at_each_size():
    sizes = sorted(int(p.stem.rsplit("-", 1)[1]) for p in (PACKAGING / "icons").glob("turnscope-*.png"))
    assert sizes == [16, 24, 32, 48, 64, 128, 256, 512]
    for size in sizes:
        assert png_size(PACKAGING / "icons" / f"turnscope-{size}.png") == (size, size)
    assert (ROOT / "widgets" / "icons" / "turnscope.svg").read_text().startswith("<svg")


def test_about_names_turnscope_qt_duckdb_and_polars_versions(qapp):
    import duckdb
    import polars
    from PySide6.QtCore import qVersion

    from widgets.about import about_text
    text = about_text()
    for expected in (f"Turnscope {metadata.version('turnscope')}", f"Qt {qVersion()}",
                     f"DuckDB {duckdb.__version__}", f"polars {polars.__version__}"):
        assert expected in text


#: Every path a user reaches headless, as the bundle runs it: each subcommand once, and each
#: that estimates tokens with both real tokenizers (the bundle must carry the tokenizer's
#: extension module, not only its rank files). ``{out}`` is a fresh folder per command.
#: A later subcommand adds its line here.
BUNDLE_COMMANDS = (
    ["--version"],
    ["audit", "--demo", "--json"],
    *(["audit", "--demo", "--json", "--tokenizer", t] for t in ("o200k", "cl100k")),
    ["audit", "--demo", "--findings"],
    *(["sweep", "--demo", "--json", "--tokenizer", t] for t in ("o200k", "cl100k")),
    ["sweep", "--demo", "--csv", "--strategies", "M0,spring-events:20,recorded"],
    *(["view", "--demo", "--session", "k0002", "--strategy", "M2", "--budget", "1500",
       "--json", "--tokenizer", t] for t in ("o200k", "cl100k")),
    ["generate", "{out}/corpus.jsonl", "--sessions", "3", "--turns", "2"],
    *(["export", "--demo", "--to", to, f"{{out}}/demo.{to}"] for to in ("atif", "otel-json")),
    *(["screenshot", "{out}/window.png", "--demo", "--size", "800x600", "--tokenizer", t]
      for t in ("o200k", "cl100k")),
    ["validate", "--demo", "--provider", "anthropic", "--json"],   # status 1: rejected ones
    ["replay", "--demo", "--session", "k0002", "--strategy", "M2", "--budget", "1500",
     "--json"],
    ["lab", "frames", "--records", "200", "--ks", "1,10", "--json"],
    ["lab", "estimates", "--demo", "--estimates", "1.5:4,o200k,cl100k", "--json"],
    # a file both read at one path (the report names the files it read)
    ["repair", str(DEMO_MAIN), "{out}/repaired.jsonl", "--session", "s000064", "--json"],
    ["report", "--format", "md", "--session", "s000064", str(DEMO_MAIN), "{out}/report.md"],
)
#: The exit status of a command of BUNDLE_COMMANDS that is not 0 (validate: some session
#: would be rejected, PROVIDERS.md).
BUNDLE_STATUS = {"validate": 1}


def _run(program: list[str], args: list[str], out: Path) -> subprocess.CompletedProcess:
    out.mkdir(parents=True)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(program + [a.format(out=out) for a in args], capture_output=True,
                          text=True, timeout=600, cwd=out, env=env)


def _demo_paths(text: str) -> str:
    """Output with the demo files' folder left out: the bundle carries its own copy."""
    return re.sub(r'[^\s"]*/sample_data/', "sample_data/", text)


def _outputs(out: Path) -> dict[str, bytes | tuple]:
    """What a command wrote: files by name (a PNG by its size: fonts may differ in pixels)."""
    return {p.name: png_size(p) if p.suffix == ".png" else p.read_bytes()
            for p in sorted(out.iterdir())}


@pytest.mark.slow
def test_the_bundle_builds_and_renders_the_demo_offscreen(tmp_path):
    """packaging/build.sh (PyInstaller, one folder) with this interpreter; the built bundle
    prints its version, audits the demo data like the package does, and renders the window
    offscreen — build.sh checks the last two itself, and this test reads what it wrote. Then
    every command of BUNDLE_COMMANDS gives, from the bundle, exactly what the installed
    package gives (status, standard output, files written)."""
    env = dict(os.environ, TURNSCOPE_DIST=str(tmp_path / "dist"),
               TURNSCOPE_WORK=str(tmp_path / "work"), QT_QPA_PLATFORM="offscreen")
    built = subprocess.run(["bash", str(PACKAGING / "build.sh"), sys.executable], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-4000:]
    bundle = tmp_path / "dist" / "turnscope"
    for name in ("turnscope.desktop", f"{APP_ID}.metainfo.xml", "install.sh",
                 "icons/turnscope-256.png", "icons/turnscope.svg"):
        assert (bundle / name).is_file(), name
    version = subprocess.run([str(bundle / "turnscope"), "--version"], capture_output=True,
                             text=True, timeout=120, cwd=tmp_path)
    assert version.stdout.split() == ["turnscope", metadata.version("turnscope")]
    audit = json.loads((tmp_path / "work" / "audit.json").read_text())
    assert {k: audit[k] for k in audits.COUNT_NAMES} == demo_counts()
    assert png_size(tmp_path / "work" / "screenshot.png") == (1600, 1000)
    tarball = tmp_path / "dist" / f"turnscope-{metadata.version('turnscope')}-linux-{os.uname().machine}.tar.gz"
    assert tarball.stat().st_size > 10_000_000

    for i, args in enumerate(BUNDLE_COMMANDS):
        mine = _run([str(bundle / "turnscope")], args, tmp_path / "bundle" / str(i))
        package = _run([sys.executable, "-m", "explorer"], args, tmp_path / "package" / str(i))
        shown = " ".join(args)
        status = BUNDLE_STATUS.get(args[0], 0)
        assert mine.returncode == package.returncode == status, (shown, mine.stderr[-3000:],
                                                                 package.stderr[-3000:])
        assert _demo_paths(mine.stdout) == _demo_paths(package.stdout), shown
        assert _outputs(tmp_path / "bundle" / str(i)) == _outputs(tmp_path / "package" / str(i)), shown
