"""The command line: the parser (``main``) and one module per subcommand; the only stage
that may open the window (a lazy import, when no subcommand or ``screenshot`` is given)."""
