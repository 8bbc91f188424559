"""Turnscope's version: the installed package's metadata (a bundle carries it too)."""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    """The version of the installed ``turnscope`` distribution."""
    try:
        return metadata.version("turnscope")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"
