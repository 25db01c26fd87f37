"""The mine's ventilation data: the :class:`~vent_agent.upstream.base.VentilationSource` protocol, the
embedded demo mine and the HTTP client of a real mine's system; :func:`make_source` picks one."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vent_agent.settings import Settings
    from vent_agent.upstream.base import VentilationSource

log = logging.getLogger(__name__)

__all__ = ["make_source", "close_source"]


def make_source(settings: Settings, **overrides: Any) -> VentilationSource:
    """The data source the settings ask for: the HTTP client of ``settings.upstream_url``, or the
    embedded demo mine when it is unset.

    HTTP options come from the settings when they have them (``upstream_timeout_s``, and once added
    ``upstream_paths``, ``upstream_params``, ``upstream_token_header``, ``upstream_service_token``) or
    from ``overrides`` (same names without the ``upstream_`` prefix: ``paths``, ``param_names``,
    ``token_header``, ``service_token``, ``transport``). Raises pydantic's ValidationError for an
    unknown operation name among the path overrides.
    """
    if not settings.upstream_url:
        from vent_agent.upstream.demo_mine import DemoMine

        log.info("ventilation data: the embedded demo mine (VENT_UPSTREAM_URL unset)")
        return DemoMine(timezone=settings.timezone)
    from vent_agent.upstream.http_source import TOKEN_HEADER, HttpVentilationSource

    options: dict[str, Any] = {
        "paths": getattr(settings, "upstream_paths", None),
        "param_names": getattr(settings, "upstream_params", None),
        "token_header": getattr(settings, "upstream_token_header", None) or TOKEN_HEADER,
        "service_token": _secret(getattr(settings, "upstream_service_token", None)),
    }
    options.update(overrides)
    log.info("ventilation data: %s", settings.upstream_url)
    return HttpVentilationSource(settings.upstream_url, timeout_s=settings.upstream_timeout_s, **options)


async def close_source(source: object) -> None:
    """Release what a source holds (the HTTP client's connections); nothing for the demo mine."""
    aclose = getattr(source, "aclose", None)
    if aclose is not None:
        await aclose()


def _secret(value: Any) -> str | None:
    """A plain string from a str or pydantic SecretStr setting."""
    if value is None:
        return None
    get = getattr(value, "get_secret_value", None)
    return get() if get else str(value)
