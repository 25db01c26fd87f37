"""Service settings (pydantic-settings, prefix ``VENT_``, read from the environment and ``.env``)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class ModelConfig(BaseModel):
    """One chat model the service may use (``VENT_MODELS`` is a JSON list of these).

    ``provider``: ``openai`` (any OpenAI-compatible endpoint), ``deepseek`` (keeps and returns
    ``reasoning_content``), ``qwen`` (``enable_thinking``). ``context_window`` in tokens.
    """

    name: str
    base_url: str
    api_key: str | None = None
    provider: Literal["openai", "deepseek", "qwen"] = "openai"
    model: str | None = Field(default=None, description="The endpoint's model id; default: name")
    context_window: int = 131072
    timeout_s: float = 60.0


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
    port: int = Field(default=8070, ge=1, le=65535)
    public_base_url: str | None = Field(
        default=None, description="Base URL for download links; default: the request's own base URL"
    )
    timezone: str = "Asia/Shanghai"
    regulation_edition: str = "2025"
    stale_data_minutes: int = Field(default=30, description="Warn when the data used is older than this")
    report_unit: str = Field(default="", description="审查单位: the reviewing unit named on review reports")
    report_reviewer: str = Field(default="", description="审查人: the reviewer named on review reports")

    # Language model (OpenAI-compatible). Unset: deterministic interpretation, no model call.
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str | None = None
    llm_timeout_s: float = 60.0

    # Uploads and review
    max_upload_mb: int = 30
    max_upload_disk_mb: int = Field(
        default=4096, description="Cap on the disk all uploads may use (507 when full); 0: no cap"
    )
    upload_retention_hours: float = Field(
        default=168.0,
        description="Uploads, reports and provenance of reviews outside a session are deleted after this, h",
    )
    max_json_body_kb: int = Field(
        default=1024, description="Body size limit of JSON requests (413 above), KiB"
    )
    max_pdf_pages: int = 200
    review_concurrency: int = 2
    review_model_reading: bool = Field(
        default=False,
        description="With a model configured, let it read tables the rules cannot map (checked before use; "
        "findings on its figures are at most minor)",
    )

    ocr_engine: Literal["rapidocr", "paddle", "none"] = "rapidocr"
    ocr_concurrency: int = 1
    ocr_concurrency_per_user: int = Field(
        default=0,
        description="OCR jobs one user (or client address) may run at once; 0: one fewer than "
        "ocr_concurrency (at least 1). Users waiting are served in turn",
    )
    ocr_isolation: Literal["process", "thread"] = Field(
        default="process", description="process: OCR in recycled worker processes (memory given back)"
    )
    ocr_worker_max_pages: int = Field(default=10, description="An OCR worker process is replaced after this")
    ocr_worker_idle_s: float = Field(default=10.0, description="OCR worker processes exit after this idle, s")
    ocr_threads: int = Field(
        default=0, description="Threads of one OCR engine (ONNX Runtime intra-op); 0: one per core"
    )
    ocr_max_render_px: int = Field(default=4000, description="Cap on a rendered page's longer side, px")
    paddle_model_dir: Path | None = Field(default=None, description="Local PaddleOCR model directory")
    warm_up: bool = Field(
        default=True,
        description="Load the OCR engine in the background at start-up for /readyz; off: the first /readyz starts it",
    )

    # Reference data of the review (MCP). Unset: the project's own MCP server over the demo mine.
    mcp_url: str | None = None
    reference_dir: Path | None = Field(
        default=None, description="Reference data as files (docs/REFERENCE_DATA.md)"
    )

    # The provenance graph (docs/ARCHITECTURE.md): embedded tables by default, or a mine's Neo4j
    graph_backend: Literal["embedded", "neo4j"] = Field(
        default="embedded", description="Where the provenance graph is kept: embedded (the database) or neo4j"
    )
    neo4j_uri: str | None = Field(
        default=None, description="Neo4j URI (neo4j://host:7687) for graph_backend=neo4j"
    )
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str | None = Field(default=None, description="Neo4j database; default: the server's")

    # Knowledge base: regulation files beyond the shipped text
    kb_dir: Path | None = None

    # Streams
    sse_ping_s: float = 15.0
    event_retention_hours: int = 72
    retention_sweep_s: float = 3600.0

    # Auth: the mine's user service. Unset: the built-in user service with ``demo_tokens``.
    auth_url: str | None = None
    auth_timeout_s: float = 5.0
    auth_cache_s: float = 60.0
    auth_user_path: str = Field(
        default="result.userInfo.username", description="Where the user name is in getUserInfo's answer"
    )
    demo_tokens: dict[str, str] = Field(
        default={"demo-token": "zhangsan", "demo-token-2": "lisi"},
        description="Built-in user service: token → user name (only when auth_url is unset)",
    )
    admin_needs_token: bool = Field(
        default=True, description="Model switch, thinking level, skill toggle/upload need a token"
    )
    cors_origins: list[str] = Field(default_factory=list)

    # Chat models (dialogue and review agents). Empty: chat answers with an error event.
    models: list[ModelConfig] = Field(default_factory=list)
    default_model: str | None = None
    skills_dir: Path | None = Field(default=None, description="Skill packs; default: <data_dir>/skills")

    # The mine's ventilation system (data tools). Unset: the embedded demo mine.
    upstream_url: str | None = None
    upstream_timeout_s: float = 10.0
    tool_timeout_s: float = 30.0
    upstream_paths: dict[str, str] = Field(
        default_factory=dict, description="Upstream path overrides by operation name (docs/UPSTREAM.md)"
    )
    upstream_params: dict[str, str] = Field(
        default_factory=dict, description='Query-parameter renames, e.g. {"tun_id": "tunId"}'
    )
    upstream_token_header: str = "X-Access-Token"
    upstream_service_token: SecretStr | None = Field(
        default=None, description="Sent upstream when a request has no user token (click interpretations)"
    )

    # Agent budgets
    max_model_calls: int = 12
    max_tool_calls: int = 24
    run_timeout_s: float = 300.0

    # Scale-out
    redis_url: str | None = None
    worker_heartbeat_s: float = Field(
        default=5.0, gt=0, description="How often a worker refreshes its heartbeat, s"
    )
    worker_dead_after_s: float = Field(
        default=20.0,
        gt=0,
        description="A worker whose heartbeat is older than this is dead; its runs are failed, s",
    )
    log_format: Literal["plain", "json"] = "plain"
    log_level: str = "INFO"

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

    @property
    def resolved_skills_dir(self) -> Path:
        """Where skill packs live (the shipped packs are copied here on first start)."""
        return self.skills_dir or self.data_dir / "skills"
