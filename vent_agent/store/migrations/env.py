"""Alembic environment: migrations run on the connection the caller hands over in
``config.attributes["connection"]`` (see ``Database.migrate`` and ``python -m vent_agent.store.migrations``);
no alembic.ini, no URL of its own."""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

from vent_agent.graph import tables as _graph_tables  # noqa: F401  (registers the graph tables)
from vent_agent.runs import worker_models as _worker_models  # noqa: F401  (registers the workers tables)
from vent_agent.store import models as _models  # noqa: F401  (registers the tables)


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    """Write SQLModel's own column types as plain SQLAlchemy ones in generated migrations."""
    if type_ == "type" and isinstance(obj, AutoString):
        return f"sa.String(length={obj.length})" if obj.length else "sa.String()"
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


config = context.config
connection = config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through vent_agent.store.db.Database.migrate (or the module CLI)")

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
    render_item=render_item,
)
with context.begin_transaction():
    context.run_migrations()
