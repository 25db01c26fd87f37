"""Where the cases run: the service built in this process and served on a loopback port
(:class:`InProcessTarget`), or a running service by URL (:class:`UrlTarget`). A target gives each case
its model (:meth:`prepare`: the configured one, the recorded replay offline, or a degraded one) and the
ventilation source the data oracles read.

Offline the in-process service ignores the environment (no ``VENT_*``, no ``.env``): SQLite in a
temporary directory, the demo mine at :data:`~vent_agent.evals.oracles.EVAL_CLOCK`, no model but the
replayed ones, so the same cases give the same results on every machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from vent_agent.evals.cases import Case
from vent_agent.evals.loopback import cut_off_endpoint, refusing_url
from vent_agent.evals.oracles import fixed_demo_mine
from vent_agent.evals.replay import ReplayChatModel, ReplayModels
from vent_agent.llm.registry import ModelRegistry, UnknownModel
from vent_agent.settings import ModelConfig, Settings
from vent_agent.upstream.base import VentilationSource
from vent_agent.upstream.demo_mine import DemoMine

TOKEN = "demo-token"
"""The built-in demo user's token, used by the cases."""

DEGRADED_TIMEOUT_S = 10.0
"""Request time-out of the degraded models (s)."""


class TargetError(RuntimeError):
    """The target cannot run the eval (unknown model, service unreachable); Chinese message."""


class HermeticSettings(Settings):
    """Settings from the arguments only: no ``VENT_*`` variables, no ``.env`` (the offline eval)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


class InProcessTarget:
    """The service of :func:`~vent_agent.app.create_app`, served by uvicorn on 127.0.0.1 (a free port)
    inside this process. ``offline``: hermetic settings and replayed models; else the environment's
    settings and ``model`` (a configured name; None: the default)."""

    def __init__(self, *, offline: bool, model: str | None = None) -> None:
        self.offline = offline
        self.model = model
        self.base_url = ""
        self._stack = contextlib.AsyncExitStack()
        self._state: Any = None
        self._registry: Any = None

    @property
    def source(self) -> VentilationSource:
        """The ventilation source the service answers from."""
        return self._state.source  # type: ignore[no-any-return]  # AppState, typed Any to keep the API layer out

    def description(self) -> str:
        """The model the cases run with, for the report."""
        return "离线回放（录制的轨迹）" if self.offline else f"{self.model or '默认模型'}（进程内服务）"

    async def __aenter__(self) -> InProcessTarget:
        import uvicorn

        from vent_agent.app import create_app

        tmp = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="vent-eval-")))
        base: dict[str, Any] = {"data_dir": tmp / "data", "warm_up": False}
        settings = HermeticSettings(**base) if self.offline else Settings(**base)
        app = create_app(settings)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None, lifespan="on"))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        self._stack.push_async_callback(self._stop, server, task, sock)
        while not server.started:
            if task.done():
                await task
                raise TargetError("进程内服务启动失败")
            await asyncio.sleep(0.02)
        self._state = app.state.vent
        self._registry = self._state.models
        if self.offline:
            self._state.source = fixed_demo_mine()
        elif self.model:
            try:
                await self._registry.switch(self.model)
            except UnknownModel as exc:
                raise TargetError(str(exc)) from exc
        return self

    @staticmethod
    async def _stop(server: Any, task: asyncio.Task[None], sock: socket.socket) -> None:
        server.should_exit = True
        await task
        sock.close()

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    @contextlib.asynccontextmanager
    async def prepare(self, case: Case) -> AsyncIterator[str | None]:
        """Give the service the case's model while the context is open; yields None (the case runs)."""
        state = self._state
        if case.setup == "no_model":
            state.models = ReplayModels(None)
        elif case.setup in ("model_down", "model_cut"):
            async with contextlib.AsyncExitStack() as stack:
                url = (
                    refusing_url()
                    if case.setup == "model_down"
                    else await stack.enter_async_context(cut_off_endpoint())
                )
                config = ModelConfig(name=f"eval-{case.setup}", base_url=url, timeout_s=DEGRADED_TIMEOUT_S)
                settings = state.settings.model_copy(update={"models": [config], "default_model": None})
                state.models = ModelRegistry(settings, state.db)
                try:
                    yield None
                finally:
                    state.models = self._registry
                return
        elif self.offline:
            state.models = ReplayModels(ReplayChatModel(turns=[*case.replay, *case.replay_resume]))
        try:
            yield None
        finally:
            state.models = self._registry


class UrlTarget:
    """A running service at ``base_url``; ``model`` is switched to first (``POST /api/model/switch``).
    Degraded cases need the in-process service and are skipped; the data oracles read the demo mine at
    the wall clock (the service's default source)."""

    def __init__(self, base_url: str, *, model: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.source: VentilationSource = DemoMine()

    def description(self) -> str:
        """The model and service, for the report."""
        return f"{self.model or '服务当前模型'}（{self.base_url}）"

    async def __aenter__(self) -> UrlTarget:
        import httpx

        headers = {"x-access-token": TOKEN}
        try:
            async with httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=10) as http:
                if self.model:
                    resp = await http.post("/api/model/switch", json={"model": self.model})
                    if resp.status_code != 200:
                        raise TargetError(f"无法切换到模型 {self.model}：{resp.text}")
                else:
                    (await http.get("/healthz")).raise_for_status()
        except httpx.HTTPError as exc:
            raise TargetError(f"无法连接服务 {self.base_url}：{exc}") from exc
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    @contextlib.asynccontextmanager
    async def prepare(self, case: Case) -> AsyncIterator[str | None]:
        """Yields why the case is skipped (a degraded model needs the in-process service), else None."""
        yield "退化模型用例只在进程内服务上运行（--url 时跳过）" if case.setup != "replay" else None
