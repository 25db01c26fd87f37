"""The agents' LangChain tools, one module per kind (import from the module):

- ``tools.context`` – :class:`AgentContext`, the runtime context every tool reads (data source,
  database, user, token, settings, run ids); build agents with ``context_schema=AgentContext``;
- ``tools.data_tools`` – ``data_tools()``: the spec's 11 data tools over the VentilationSource;
- ``tools.preference_tools`` – ``preference_tools()``: save/list/delete the caller's preferences;
  ``tools.preference_store`` – their table access and ``render_preferences(db, user_name)`` for the
  system prompt;
- ``tools.system_tools`` – ``system_tools()``: ``get_current_time``;
- ``tools.calc_tools`` – ``calc_tools()``: the air-volume calculators; ``tools.kb_tools`` – the
  knowledge base;
- ``tools.network_tools`` – ``network_tools()``: ``network_solve``, ``network_what_if``,
  ``regulator_size``, ``diagonal_branches`` over the mine's network (ventnet; computing, never actuating);
- ``tools.common`` – time-outs and error results shared by the context tools; ``tools.data_format`` –
  how data records are shown to the model.
"""
