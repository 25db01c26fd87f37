"""Chat sessions: ownership, settings (mode, pin, title), folded messages and history."""
