"""The review as a service: the pipeline from upload to result (:mod:`.pipeline`, also used by
``vent-agent review``), the run body with its slots (:mod:`.run`), publishing the report
(:mod:`.publish`), the session turns of a standalone review (:mod:`.session_turns`) and retention
(:mod:`.retention`). Only this room of the review imports from ``runs``, ``store`` or ``sessions``."""
