"""The service's side of network solving: the demo mine's network (:mod:`.demo`), judging a what-if
against the regulations (:mod:`.judge`), and the request shapes the API and tools share (:mod:`.requests`).
The solver itself is the ``ventnet`` package."""
