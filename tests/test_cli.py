"""The ``turnscope`` command line: audit output shapes, exit codes, generate, no display."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from explorer.cli.main import main
from tests.helpers import jsonl

ROWS = [
    {"session_id": "s", "seq": 1, "kind": "USER", "chars": 4},
    {"session_id": "s", "seq": 2, "kind": "RESULT", "call_id": "lost", "chars": 4},
]


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_audit_json_has_every_count_name(capsys, tmp_path):
    status, out, err = _run(capsys, "audit", str(jsonl(tmp_path / "a.jsonl", ROWS)), "--json")
    doc = json.loads(out)
    assert status == 0 and err == ""
    assert set(audits.COUNT_NAMES) | {"rejected"} <= set(doc)
    assert (doc["events"], doc["orphan_results"], doc["rejected"]) == (2, 1, 0)
    assert doc["files"][0]["format"] == "canonical-jsonl"


def test_audit_plain_table(capsys, tmp_path):
    status, out, _ = _run(capsys, "audit", str(jsonl(tmp_path / "a.jsonl", ROWS)))
    assert status == 0
    assert any(line.split() == ["orphan_results", "1"] for line in out.splitlines())


def test_rejected_lines_warn_and_strict_fails(capsys, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"session_id":"s","seq":1,"kind":"USER"}\nnot json\n')
    status, out, err = _run(capsys, "audit", str(path), "--json")
    assert status == 0 and json.loads(out)["rejected"] == 1
    assert f"{path}:2: invalid JSON" in err
    status, _, _ = _run(capsys, "audit", str(path), "--strict")
    assert status == 2


def test_not_a_log_is_one_error_and_status_2(capsys, tmp_path):
    png = tmp_path / "shot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    status, out, err = _run(capsys, "audit", str(png))
    assert status == 2 and out == ""
    assert err.strip() == f"turnscope audit: error: {png}: not a session log: the file is a PNG image"


def test_findings_json_lines(capsys, tmp_path):
    status, out, _ = _run(capsys, "audit", str(jsonl(tmp_path / "a.jsonl", ROWS)),
                          "--findings", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert lines == [{"rule": "orphan_results", "session_id": "s",
                      "events": [{"seq": 2, "sub": 0, "kind": "RESULT", "call_id": "lost"}]}]


def test_audit_db_without_paths(capsys, tmp_path):
    db = tmp_path / "c.duckdb"
    log = jsonl(tmp_path / "a.jsonl", ROWS)
    assert _run(capsys, "audit", str(log), "--db", str(db))[0] == 0
    status, out, _ = _run(capsys, "audit", "--db", str(db), "--json", "--order", "ts")
    assert status == 0 and json.loads(out)["events"] == 2 and json.loads(out)["order"] == "ts"


def test_audit_needs_input(capsys):
    status, _, err = _run(capsys, "audit")
    assert status == 2 and "give at least one PATH" in err


def test_demo_stands_for_the_shipped_files(capsys):
    status, out, _ = _run(capsys, "audit", "--demo", "--json")
    doc = json.loads(out)
    assert status == 0 and len(doc["files"]) == 3 and doc["sessions"] > 200


def test_generate_is_deterministic(capsys, tmp_path):
    digests = []
    for name in ("one.jsonl", "two.jsonl"):
        out = tmp_path / name
        assert _run(capsys, "generate", str(out), "--sessions", "20", "--turns", "3",
                    "--p-retry", "0.1", "--ts-align", "0.5", "--seed", "4")[0] == 0
        digests.append(hashlib.sha256(out.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    assert _run(capsys, "generate", str(tmp_path / "x.txt"))[0] == 2


def _without_display() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return env


def test_window_without_display_explains_itself():
    result = subprocess.run([sys.executable, "-m", "explorer"], capture_output=True, text=True,
                            env=_without_display(), timeout=120)
    assert result.returncode == 3
    assert "xvfb-run -a python3 -m explorer" in result.stderr
    assert "python3 -m explorer audit" in result.stderr
    assert "Traceback" not in result.stderr


def test_no_display_advice_names_the_command_as_it_was_typed(tmp_path):
    """After the README's command the program is .venv/bin/turnscope, not on PATH: the
    advice repeats that path (``xvfb-run -a turnscope`` would be "not found")."""
    command = Path(sys.executable).parent / "turnscope"
    env = dict(_without_display(), PATH="/usr/bin:/bin")
    result = subprocess.run([str(command)], capture_output=True, text=True, env=env,
                            timeout=120, cwd=tmp_path)
    assert result.returncode == 3
    assert f"xvfb-run -a {command} [PATH...]" in result.stderr


def test_a_missing_system_library_is_one_message_naming_the_package(monkeypatch, capsys):
    """What the loader says when libglib is absent (the text of a real ImportError on a bare
    Debian 12) becomes the Debian package to install and exit status 3, not a traceback."""
    import types
    broken = types.ModuleType("widgets.screenshot")

    def missing(name):
        raise ImportError("libglib-2.0.so.0: cannot open shared object file: No such file or "
                          "directory")
    broken.__getattr__ = missing
    monkeypatch.setitem(sys.modules, "widgets.screenshot", broken)
    assert main(["screenshot", "out.png", "--demo"]) == 3
    err = capsys.readouterr().err
    assert "libglib-2.0.so.0" in err and "apt-get install libglib2.0-0\n" in err
    assert "Traceback" not in err


def test_another_import_error_is_not_taken_for_a_missing_library(monkeypatch):
    import types
    broken = types.ModuleType("widgets.screenshot")

    def missing(name):
        raise ImportError(f"cannot import name {name!r}")
    broken.__getattr__ = missing
    monkeypatch.setitem(sys.modules, "widgets.screenshot", broken)
    with pytest.raises(ImportError, match="cannot import name"):
        main(["screenshot", "out.png", "--demo"])


def test_installed_command_runs_headless(tmp_path):
    log = jsonl(tmp_path / "a.jsonl", ROWS)
    command = shutil.which("turnscope", path=os.pathsep.join(
        [os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    assert command, "the turnscope command is not installed"
    result = subprocess.run([command, "audit", str(log), "--json"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["events"] == 2


def test_version_comes_from_the_package_metadata(capsys):
    from importlib import metadata
    for flag in ("--version", "-V"):
        with pytest.raises(SystemExit) as stop:
            main([flag])
        assert stop.value.code == 0
        assert capsys.readouterr().out.strip() == f"turnscope {metadata.version('turnscope')}"


@pytest.mark.parametrize("command", [
    ["sweep"], ["validate"], ["export", "--to", "jsonl"], ["report", "--format", "md"]])
def test_every_reading_command_warns_of_rejected_lines(capsys, tmp_path, command):
    """The commands that read logs open them one way: a rejected line is warned about on
    stderr, and a file that cannot be read is named and makes the status 2."""
    path = jsonl(tmp_path / "a.jsonl", ROWS)
    with path.open("a") as fh:
        fh.write('{"session_id": "s", "seq": 3, "kind": \n')
    out = [str(tmp_path / "out.txt")] if command[0] in ("export", "report") else []
    status, _, err = _run(capsys, command[0], str(path), *out, *command[1:])
    assert status in (0, 1), err   # validate: 1, the orphan result is rejected
    assert "warning: 1 input line(s) rejected" in err
    missing = tmp_path / "missing.jsonl"
    status, _, err = _run(capsys, command[0], str(path), str(missing), *out, *command[1:])
    assert status == 2 and "missing.jsonl" in err
