"""A corpus of hands: the demo mine's 2026-08 plan written in many layouts, units and text layers
(issue 12 item 6). :mod:`model` is the plan's content, :mod:`faults` the seeded faults of plan b as
content changes, :mod:`hands` the hands as data, :mod:`render` the writer."""
