"""The regulation knowledge base (docs/KB.md): corpus (``regulations``, ``tables``), article numbers
(``numerals``, ``aliases``), retrieval (``tokens``, ``search``), citation checks (``quantities``,
``citations``) and the thresholds as data (``thresholds``). Import from the modules."""
