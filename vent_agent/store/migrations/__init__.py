"""Alembic migrations of the store (env and versions); run by :meth:`vent_agent.store.db.Database.migrate`.

Make a new migration after changing a table: ``python -m vent_agent.store.migrations revision -m "what"``.
"""
