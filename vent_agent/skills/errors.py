"""The one error type of the skills package: a message in Chinese and the HTTP status it maps to."""

from __future__ import annotations


class SkillError(Exception):
    """A skill request that cannot be served. ``status``: 400 (bad name, bad pack, hostile zip), 404
    (unknown skill, no SKILL.md), 409 (name clash), 413 (upload over the size cap), 403 (disabled skill,
    or one not meant for the asking agent, when an agent asks to load it)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
