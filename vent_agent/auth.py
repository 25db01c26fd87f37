"""Who is calling: ``x-access-token`` → the mine's user service (``GET {auth_url}/sys/user/getUserInfo``),
answers cached briefly; or, when no user-service URL is configured, the built-in user service with the
demo tokens of the settings (announced loudly at start-up).

Status mapping (spec §认证机制): 401 missing, invalid or expired token; 502 user service unreachable or
answering garbage; 504 user service time-out; 500 no user service configured.
JeecgBoot-style answer (docs/DESIGN.md §Integration notes): ``{"success": true, "code": 200, "result":
{"userInfo": {"id", "username", "realname", …}}}``; ``success: false`` or HTTP 401/403 means the token is
not valid. The user-name path is the setting ``auth_user_path``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from vent_agent.settings import Settings
from vent_agent.tls import tls_context

log = logging.getLogger(__name__)

USER_INFO_PATH = "/sys/user/getUserInfo"
TOKEN_HEADER = "X-Access-Token"
MAX_TOKEN_LEN = 4096


@dataclass(frozen=True)
class User:
    """An authenticated caller. ``user_name`` owns sessions; ``token`` is forwarded upstream where the
    mine's systems need it (data tools)."""

    user_name: str
    token: str
    real_name: str | None = None
    user_id: str | None = None


class AuthError(Exception):
    """Authentication failed; ``status`` is the HTTP status to answer (401, 500, 502 or 504)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class UserService(Protocol):
    """Checks a token. Raises :class:`AuthError` when the caller cannot be identified."""

    async def verify(self, token: str) -> User: ...

    async def aclose(self) -> None: ...


def _dig(data: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


class HttpUserService:
    """The mine's user service over HTTP, with successful answers cached for ``cache_s`` seconds.

    Raises :class:`AuthError` 401 (token rejected), 502 (unreachable, 5xx or unreadable answer), 504
    (no answer within ``timeout_s``).
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 5.0,
        cache_s: float = 60.0,
        user_path: str = "result.userInfo.username",
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + USER_INFO_PATH
        self.cache_s = cache_s
        self.user_path = user_path
        self._cache: dict[str, tuple[float, User]] = {}
        self._client = httpx.AsyncClient(timeout=timeout_s, transport=transport, verify=tls_context())

    async def verify(self, token: str) -> User:
        now = time.monotonic()
        hit = self._cache.get(token)
        if hit and hit[0] > now:
            return hit[1]
        try:
            resp = await self._client.get(self.url, headers={TOKEN_HEADER: token})
        except httpx.TimeoutException as exc:
            raise AuthError(504, "认证服务响应超时") from exc
        except httpx.HTTPError as exc:
            log.warning("user service unreachable: %s", exc)
            raise AuthError(502, "认证服务连接失败") from exc
        if resp.status_code in (401, 403):
            raise AuthError(401, "令牌无效或已过期")
        if resp.status_code >= 400:
            log.warning("user service answered HTTP %s", resp.status_code)
            raise AuthError(502, f"认证服务异常（HTTP {resp.status_code}）")
        try:
            body = resp.json()
        except ValueError as exc:
            raise AuthError(502, "认证服务返回了无法解析的内容") from exc
        if not isinstance(body, dict):
            raise AuthError(502, "认证服务返回了无法解析的内容")
        if body.get("success") is False or body.get("code") in (401, 403, "401", "403"):
            raise AuthError(401, "令牌无效或已过期")
        name = _dig(body, self.user_path)
        if not isinstance(name, str) or not name.strip():
            raise AuthError(502, "认证服务返回的用户信息不完整")
        info = _dig(body, self.user_path.rsplit(".", 1)[0]) if "." in self.user_path else None
        info = info if isinstance(info, dict) else {}
        user = User(
            user_name=name.strip(),
            token=token,
            real_name=info.get("realname"),
            user_id=str(info["id"]) if info.get("id") is not None else None,
        )
        if len(self._cache) > 10_000:
            self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
        self._cache[token] = (now + self.cache_s, user)
        return user

    async def aclose(self) -> None:
        await self._client.aclose()


class BuiltinUserService:
    """The embedded default: fixed demo tokens (token → user name) from the settings. For trying the
    service without the mine's systems; never used when a user-service URL is configured."""

    def __init__(self, tokens: dict[str, str]) -> None:
        self.tokens = dict(tokens)

    async def verify(self, token: str) -> User:
        name = self.tokens.get(token)
        if not name:
            raise AuthError(401, "令牌无效或已过期")
        return User(user_name=name, token=token, real_name=name)

    async def aclose(self) -> None:
        return None


class UnconfiguredUserService:
    """No user-service URL and no demo tokens: every authenticated route answers 500 (spec)."""

    async def verify(self, token: str) -> User:
        raise AuthError(500, "认证服务地址未配置")

    async def aclose(self) -> None:
        return None


def make_user_service(settings: Settings) -> UserService:
    """The user service the settings ask for; logs loudly when the built-in demo service is used."""
    if settings.auth_url:
        return HttpUserService(
            settings.auth_url,
            timeout_s=settings.auth_timeout_s,
            cache_s=settings.auth_cache_s,
            user_path=settings.auth_user_path,
        )
    if settings.demo_tokens:
        log.warning(
            "!!! NO USER SERVICE CONFIGURED (VENT_AUTH_URL): using the BUILT-IN user service with %d demo "
            "token(s). Anyone holding a demo token is a user. Set VENT_AUTH_URL for a real deployment. !!!",
            len(settings.demo_tokens),
        )
        return BuiltinUserService(settings.demo_tokens)
    log.error("no user service configured and no demo tokens: authenticated routes answer 500")
    return UnconfiguredUserService()


async def authenticate(service: UserService, token: str | None) -> User:
    """Check ``token`` (the ``x-access-token`` header). Raises :class:`AuthError` 401 when it is missing,
    blank or absurdly long, else whatever the service raises."""
    token = (token or "").strip()
    if not token:
        raise AuthError(401, "缺少令牌（x-access-token）")
    if len(token) > MAX_TOKEN_LEN or not token.isprintable():
        raise AuthError(401, "令牌无效或已过期")
    return await service.verify(token)
