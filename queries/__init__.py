"""Named SQL statements, one per ``.sql`` file in this package, loaded by name.

Values always go in as named parameters (``$name``). The only text ever spliced into a
statement is an ORDER BY key chosen from :data:`explorer.model.ORDER_KEYS`, at the
``/*ORDER*/`` marker, and fixed fragments from the core (never user input).
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    """Return the text of ``queries/<name>.sql``."""
    return resources.files(__name__).joinpath(f"{name}.sql").read_text(encoding="utf-8")


def names() -> list[str]:
    """Every statement name this package ships."""
    return sorted(
        p.name[:-4] for p in resources.files(__name__).iterdir() if p.name.endswith(".sql")
    )


def render(name: str, **fragments: str) -> str:
    """Load ``name`` and replace each ``/*KEY*/`` marker by its fragment."""
    text = load(name)
    for key, fragment in fragments.items():
        marker = f"/*{key.upper()}*/"
        if marker not in text:
            raise KeyError(f"{name}.sql has no {marker} marker")
        text = text.replace(marker, fragment)
    return text
