"""Dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader

from vent_agent.api.errors import ApiError
from vent_agent.auth import AuthError, User, authenticate
from vent_agent.state import AppState


async def get_state(request: Request) -> AppState:
    """The app's :class:`AppState`. A coroutine: FastAPI runs a plain function dependency in its
    thread pool, a thread hop per request (under a burst of clicks, a queue for the pool's threads)."""
    state: AppState = request.app.state.vent
    return state


def public_base_url(request: Request, state: AppState) -> str:
    """The base URL for links given to clients: the setting, else the request's own."""
    base = state.settings.public_base_url or str(request.base_url)
    return base.rstrip("/")


StateDep = Annotated[AppState, Depends(get_state)]

ACCESS_TOKEN = APIKeyHeader(
    name="x-access-token",
    scheme_name="AccessToken",
    description="登录令牌（通风系统 /sys/user/getUserInfo 验证）",
    auto_error=False,
)
"""The spec's ``x-access-token`` header, declared as the OpenAPI security scheme ``AccessToken``."""
TokenDep = Annotated[str | None, Security(ACCESS_TOKEN)]


async def require_user(state: StateDep, token: TokenDep) -> User:
    """The caller identified by ``x-access-token``; :class:`ApiError` 401/500/502/504 otherwise (spec)."""
    try:
        return await authenticate(state.users, token)
    except AuthError as exc:
        raise ApiError(exc.status, exc.message) from exc


async def require_admin(state: StateDep, token: TokenDep) -> User | None:
    """For routes that change the service for everyone (model switch, thinking level, skill toggle and
    upload): a token is needed unless ``admin_needs_token`` is off (a deviation from the spec, which asks
    none; docs/API_DOCUMENTATION.md). Returns the caller, or None when no token is needed and none given."""
    if not state.settings.admin_needs_token and not token:
        return None
    return await require_user(state, token)


async def optional_user(state: StateDep, token: TokenDep) -> User | None:
    """The caller when ``x-access-token`` names one, else None (no token, or one the user service refuses
    or cannot check): for read-only routes that need no token but say more to a known caller."""
    if not token:
        return None
    try:
        return await authenticate(state.users, token)
    except AuthError:
        return None


CurrentUser = Annotated[User, Depends(require_user)]
OptionalUser = Annotated[User | None, Depends(optional_user)]
AdminUser = Annotated[User | None, Depends(require_admin)]
