"""What if: solve a network before and after changes and say what changed (docs/DOMAIN.md §7): each
branch's new flow, branches whose direction flips (and which of them are diagonal), the fans' new
operating points. Judging the result against the regulations is the service's (vent_agent.network)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ventnet.changes import Change, applied
from ventnet.diagonal import diagonal_branches
from ventnet.network import Network
from ventnet.solution import REVERSE_TOLERANCE, Solution
from ventnet.solve import solve


@dataclass(frozen=True)
class WhatIf:
    """The network before and after ``changes``: both solutions, the changed network, the branches whose
    flow changes sign (``flipped``) and those of them that are diagonal in either state
    (``diagonal_flips``), and a Chinese note for each change that left its branch as it was (``notes``:
    closing a closed door…). Branches removed by a change have no ``after`` flow; added ones no
    ``before``."""

    changes: tuple[Change, ...]
    network: Network
    before: Solution
    after: Solution
    flipped: tuple[str, ...]
    diagonal_flips: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The solve's shape for the state after the changes (``converged``, ``iterations``,
        ``residual_q``, ``residual_h``, ``branches``, ``nodes``, ``reversed``, ``fans``), each branch with
        ``q_before`` and ``dq`` (m³/s) besides, plus ``changes``, ``flipped``, ``diagonal_flips`` and
        ``notes``."""
        out = self.after.to_json()
        for row in out["branches"]:
            before = self.before.q.get(row["id"])
            row["q_before"] = before
            row["dq"] = None if before is None else row["q"] - before
        out["changes"] = [change.describe() for change in self.changes]
        out["flipped"] = list(self.flipped)
        out["diagonal_flips"] = list(self.diagonal_flips)
        out["notes"] = list(self.notes)
        return out


def what_if(network: Network, changes: Sequence[Change], before: Solution | None = None) -> WhatIf:
    """Solve ``network`` (unless ``before`` is its solution already) and the network after ``changes``,
    the latter warm-started from the former. Raises :class:`~ventnet.errors.NetworkError` for a change
    that does not apply and :class:`~ventnet.errors.NotConverged` when either solve does not converge."""
    base = before if before is not None else solve(network)
    changed, notes = applied(network, changes)
    after = solve(changed, warm=base)
    flipped = tuple(
        k
        for k, q in after.q.items()
        if k in base.q
        and abs(q) > REVERSE_TOLERANCE
        and abs(base.q[k]) > REVERSE_TOLERANCE
        and q * base.q[k] < 0
    )
    diagonal = set(diagonal_branches(network, base, flipped)) | set(
        diagonal_branches(changed, after, flipped)
    )
    diagonal_flips = tuple(k for k in flipped if k in diagonal)
    return WhatIf(tuple(changes), changed, base, after, flipped, diagonal_flips, notes)
