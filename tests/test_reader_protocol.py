"""The reader contract (explorer/formats/reader.py): every reader of the registry is what its
KIND says, with the attributes the Protocol names, and no reader holds a database."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from explorer.formats import reader as contract
from explorer.formats.registry import READERS

PROTOCOLS = {"records": contract.RecordReader, "scan": contract.ScanReader}


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.NAME)
def test_every_reader_is_what_its_kind_says(reader):
    assert isinstance(reader, PROTOCOLS[reader.KIND])
    assert isinstance(reader.NAME, str) and isinstance(reader.BINARY, bool)


def test_the_registry_names_each_format_once():
    names = [r.NAME for r in READERS]
    assert len(set(names)) == len(names) == len({id(r) for r in READERS})


def test_no_reader_holds_a_connection():
    """Readers describe their files; only explorer/ingest stages them in DuckDB."""
    folder = Path(contract.__file__).parent
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert not {"duckdb", "queries", "explorer.store", "explorer.store.db",
                    "explorer.ingest"} & imported, path.name
