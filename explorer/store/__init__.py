"""The DuckDB store: the connection and schema (``db``), the one transaction helper, and the
record of imports that did not finish (``durability``)."""
