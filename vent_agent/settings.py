"""Service settings (pydantic-settings, prefix ``VENT_``, read from the environment and ``.env``)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """All settings of the service; every field can be set as ``VENT_<NAME>``.

    Embedded defaults: SQLite under ``data_dir``, the built-in demo mine, no language model (fast
    interpretations and plan reviews still run, deterministically).
    """

    model_config = SettingsConfigDict(env_prefix="VENT_", env_file=".env", extra="ignore")

    data_dir: Path = Path("./data")
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; default sqlite+aiosqlite:///<data_dir>/vent_agent.db"
    )
    host: str = "127.0.0.1"
    port: int = 8070
    public_base_url: str | None = Field(
        default=None, description="Base URL for download links; default: the request's own base URL"
    )
    timezone: str = "Asia/Shanghai"
    regulation_edition: str = "2025"
    stale_data_minutes: int = Field(default=30, description="Warn when the data used is older than this")

    # Language model (OpenAI-compatible). Unset: deterministic interpretation, no model call.
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str | None = None
    llm_timeout_s: float = 60.0

    # Uploads and review
    max_upload_mb: int = 30
    max_pdf_pages: int = 200
    review_concurrency: int = 2

    # Streams
    sse_ping_s: float = 15.0
    event_retention_hours: int = 72

    @cached_property
    def resolved_database_url(self) -> str:
        """The database URL to use (SQLite under ``data_dir`` when none is set)."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'vent_agent.db').resolve()}"

    @property
    def llm_configured(self) -> bool:
        """True when base URL and model name are both set."""
        return bool(self.llm_base_url and self.llm_model)

    @property
    def reports_dir(self) -> Path:
        return self.data_dir / "reports"

    @property
    def uploads_dir(self) -> Path:
        return self.data_dir / "uploads"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"
