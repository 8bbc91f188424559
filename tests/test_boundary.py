"""The core never imports Qt, pyqtgraph or the widgets (STYLE.md habit 1), checked twice."""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import explorer

ROOT = Path(__file__).resolve().parents[1]


def test_core_modules_load_no_qt():
    # with the prefix, walk_packages imports each subpackage and walks into it (without it
    # the subpackages' modules, explorer.cli.main among them, were never listed)
    modules = [m.name for m in pkgutil.walk_packages(explorer.__path__, prefix="explorer.")
               if m.name != "explorer.__main__"]  # running it would open the window
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r} + ['queries']:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'widgets', 'shiboken6'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
    assert "explorer.cli.main" in modules and "explorer.audits.counts" in modules
    on_disk = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in (ROOT / "explorer").rglob("*.py")} - {"explorer", "explorer.__main__"}
    assert set(modules) == on_disk


def test_import_contracts_hold():
    command = shutil.which("lint-imports", path=os.pathsep.join(
        [os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    assert command, "import-linter (the test extra) is not installed"
    result = subprocess.run([command, "--no-cache"], capture_output=True, text=True, cwd=ROOT,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
