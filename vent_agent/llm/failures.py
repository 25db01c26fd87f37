"""A failed chat-model call told to the user: which model (its ``VENT_MODELS`` name and ``base_url``),
and what went wrong (not reachable, timed out, an HTTP error with its status, refused credentials), in
Chinese, instead of an exception's class name alone."""

from __future__ import annotations

import openai
from langchain_core.exceptions import (
    ModelAuthenticationError,
    ModelConnectionError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelTimeoutError,
)

from vent_agent.llm.chunks import model_name


def model_endpoint(model: object) -> tuple[str, str | None]:
    """``(name, base_url)`` of a chat model: its ``VENT_MODELS`` name (else its model id) and its
    endpoint's base URL (None when it has none, as a scripted test model)."""
    name = getattr(model, "config_name", None) or model_name(model)
    base = getattr(model, "openai_api_base", None) or getattr(model, "api_base", None)
    return str(name), (str(base) if base else None)


def _what(exc: BaseException) -> str:
    if isinstance(exc, openai.APITimeoutError | ModelTimeoutError | TimeoutError):
        return "响应超时"
    if isinstance(exc, openai.APIConnectionError | ModelConnectionError):
        return "连接失败（无法连接到模型服务，请检查服务是否运行、地址是否正确）"
    if isinstance(exc, openai.AuthenticationError | ModelAuthenticationError):
        return "拒绝了 API 密钥（HTTP 401，请检查 api_key）"
    if isinstance(exc, openai.NotFoundError | ModelNotFoundError):
        return "找不到该模型（HTTP 404，请检查 model 与 base_url）"
    if isinstance(exc, openai.RateLimitError | ModelRateLimitError):
        return "请求过于频繁或额度不足（HTTP 429）"
    if isinstance(exc, openai.APIStatusError):
        return f"返回错误（HTTP {exc.status_code}）"
    return f"调用失败（{type(exc).__name__}）"


def _cause(exc: BaseException) -> BaseException:
    """``exc`` or the first exception of its cause chain that is a model client's error."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, openai.OpenAIError | ModelConnectionError | ModelTimeoutError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return exc


def model_failure_message(exc: BaseException, model: object) -> str:
    """The Chinese ``error`` message of a chat turn whose model call raised ``exc``, e.g.
    ``对话模型「local」（http://127.0.0.1:11434/v1）连接失败（…），请稍后重试或切换模型``."""
    name, base = model_endpoint(model)
    where = f"（{base}）" if base else ""
    return f"对话模型「{name}」{where}{_what(_cause(exc))}，请稍后重试或切换模型"
