"""``python -m vent_agent.cli``: the ``vent-agent`` command."""

from vent_agent.cli import main

main()
