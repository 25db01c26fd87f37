"""Evals of the assistant as a user meets it (issue 27): cases in ``evals/cases.yaml`` run against the
service (in-process on a loopback port, or a running one by URL), with a configured model or offline with
recorded trajectories replayed; deterministic checks (trajectory, figures against ``calc/`` and the demo
mine, citations against the knowledge base, refusals, plan-mode interrupts, degraded models); the plan
review against every answer key; a report (``REPORT.md``, ``results.json``) compared with
``evals/baseline.json``. Entry point: ``vent-agent eval`` (:mod:`vent_agent.cli.eval`)."""
