"""Turnscope's core (no Qt). Importing it first fixes how polars's allocator hands freed
memory back (:func:`explorer.process_memory.polars_returns_freed_pages`): it is read once,
when polars is first loaded."""

from explorer.process_memory import polars_returns_freed_pages

polars_returns_freed_pages()
