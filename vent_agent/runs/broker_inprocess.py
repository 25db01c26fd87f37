"""The in-process broker: wakes the subscribers and carries cancel requests within this process only.

Several processes on one database still see each other's runs: their subscribers poll the log every
``poll_s`` (:class:`~vent_agent.runs.manager.RunManager`), and a cancel asked elsewhere reaches the run
through the flag its worker polls (``run_workers.cancel_requested``).
"""

from __future__ import annotations

from vent_agent.runs.broker import Broker


class InProcessBroker(Broker):
    """A :class:`~vent_agent.runs.broker.Broker` that reaches no other worker: nothing to connect, and
    :meth:`_send` delivers nothing."""

    kind = "in-process"
    fans_out = False

    @property
    def connected(self) -> bool:
        """Never: no other worker is reached."""
        return False

    async def start(self) -> None:
        """Connect (nothing to do in-process)."""

    async def close(self) -> None:
        """Disconnect (nothing to do in-process)."""

    async def _send(self, message: str) -> None:
        """Deliver ``message`` to the other workers (nothing to do in-process)."""
