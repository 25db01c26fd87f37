"""Migration scripts, oldest first (``0001_initial`` is the schema as of the first migration)."""
