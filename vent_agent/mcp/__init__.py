"""MCP reference data of the plan review: the project's own MCP server (``server``), the review's
client (``client``), the tools' wire format (``schemas``), reference data from files (``files``) and
the data-checker's glue (``data_checker``). docs/REFERENCE_DATA.md describes tools and files."""
