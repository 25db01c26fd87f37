"""The model layer.

- ``registry.py`` — :class:`ModelRegistry`: configured models, the current model and thinking level
  (in the store, shared by workers), ``chat_model()`` for the agents.
- ``providers.py`` — one configured model at one thinking level → its LangChain chat model.
- ``compat.py`` — the provider classes: reasoning kept in streams and sent back, tool calls indexed.
- ``thinking.py`` — thinking levels and their request parameters per provider, as data.
- ``chunks.py`` — ``reasoning_text`` / ``content_text``: how agents read streamed output.
- ``usage.py`` — token usage and the session context breakdown.
- ``openai_compat.py`` — the click-interpret model (``VENT_LLM_*``), untouched by model switches.
"""
