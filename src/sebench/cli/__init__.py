"""The command-line interface: a thin skin over the library (one module per command group)."""
