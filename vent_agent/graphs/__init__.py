"""LangGraph graphs: the supervisor behind ``POST /api/chat``, the dialogue agent (通风对话助手) and the
mapping of their streams onto the spec's events."""
