"""Dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from vent_agent.state import AppState


def get_state(request: Request) -> AppState:
    """The app's :class:`AppState`."""
    return request.app.state.vent


def public_base_url(request: Request, state: AppState) -> str:
    """The base URL for links given to clients: the setting, else the request's own."""
    base = state.settings.public_base_url or str(request.base_url)
    return base.rstrip("/")


StateDep = Annotated[AppState, Depends(get_state)]
