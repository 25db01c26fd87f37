"""The chat service: a turn of ``POST /api/chat`` or a ``POST /api/chat/resume`` as a durable run."""
