"""``POST /api/network/solve``, ``/what-if`` and ``/fit``: solve a ventilation network, try a change on
it, or fit its resistances to a survey (additions to the spec; docs/API_DOCUMENTATION.md, 通风网络解算).

The body names a network (``topology_csv`` or ``branches``) or none (the demo mine's); the answer is
the solver's JSON shape with the judgement of the result. A network that cannot be posed, a change that
does not apply, or a solve that does not converge is 400 ``{"error": "…"}`` in Chinese. No token: it
reads no mine data beyond the demo's and changes nothing. The solve runs in a worker thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from vent_agent.api.deps import StateDep
from vent_agent.api.errors import ApiError
from vent_agent.api.json_body import ApiRoute
from vent_agent.network.requests import FitSpec, NetworkSpec, WhatIfSpec
from vent_agent.network.service import fit_payload, solve_payload, what_if_payload
from ventnet import NetworkError, NotConverged

router = APIRouter(prefix="/api/network", tags=["network"], route_class=ApiRoute)


@router.post("/solve")
async def network_solve(body: NetworkSpec, state: StateDep) -> dict[str, Any]:
    """Each branch's Q (m³/s) and h (Pa), each node's p (Pa), convergence, residuals, findings."""
    try:
        return await asyncio.to_thread(solve_payload, body, state.settings.regulation_edition)
    except (NetworkError, NotConverged) as exc:
        raise ApiError(400, str(exc)) from exc


@router.post("/what-if")
async def network_what_if(body: WhatIfSpec, state: StateDep) -> dict[str, Any]:
    """The network after the changes: each branch's new Q and its change, reversals, findings."""
    try:
        return await asyncio.to_thread(what_if_payload, body, state.settings.regulation_edition)
    except (NetworkError, NotConverged) as exc:
        raise ApiError(400, str(exc)) from exc


@router.post("/fit")
async def network_fit(body: FitSpec) -> dict[str, Any]:
    """Resistances fitted to a survey's measured flows and drops (风阻反演): each branch's R, whether the
    data determine it, the residual."""
    try:
        return await asyncio.to_thread(fit_payload, body)
    except (NetworkError, NotConverged) as exc:
        raise ApiError(400, str(exc)) from exc
