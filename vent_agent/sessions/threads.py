"""LangGraph thread keys of a session."""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig


def checkpoint_thread(session_id: str, thread_id: str) -> str:
    """The checkpointer's key for a session's thread: namespaced by the session, so that a thread id
    given by one user can never reach another session's checkpoints."""
    return session_id if thread_id == session_id else f"{session_id}::{thread_id}"


def graph_config(session_id: str, thread_id: str) -> RunnableConfig:
    """The LangGraph config of a session's thread."""
    return {"configurable": {"thread_id": checkpoint_thread(session_id, thread_id)}, "recursion_limit": 100}
