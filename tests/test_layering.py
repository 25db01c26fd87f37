"""Layering: routes start runs and tail logs; nothing below the API layer imports from it.

Every module of ``vent_agent`` except the API layer itself (``vent_agent/api/``), the app factory
(``vent_agent/app.py``) and the command line entry point (``vent_agent/cli/__init__.py``, which starts the
app) is parsed, and each ``import``/``from … import`` (top level or inside a function) is checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vent_agent

PACKAGE = Path(vent_agent.__file__).parent
ABOVE_API = {"api", "app.py", "cli/__init__.py"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str | None = None) -> list[str]:
    """The absolute names ``path`` (module ``module``, by default its name in the package) imports, with
    relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = module or _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            names.append(mod)
            names.extend(f"{mod}.{alias.name}" for alias in node.names)
    return names


def _below_api() -> list[Path]:
    return [
        p
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.relative_to(PACKAGE).parts[0] not in ABOVE_API
        and p.relative_to(PACKAGE).as_posix() not in ABOVE_API
    ]


def test_nothing_below_the_api_layer_imports_from_it() -> None:
    modules = _below_api()
    assert len(modules) > 50, "the walk found too few modules: the package layout changed"
    offenders = {
        str(p.relative_to(PACKAGE.parent)): sorted(
            {n for n in _imports(p) if n.split(".")[:2] == ["vent_agent", "api"]}
        )
        for p in modules
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_walk_sees_a_function_level_import(tmp_path: Path) -> None:
    """The checker itself: a lazy import inside a function, and a relative one, are both found."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f():\n    from vent_agent.api.review import x\n\nfrom ..api import sse\n", encoding="utf-8"
    )
    names = _imports(probe, "vent_agent.chat.probe")
    assert "vent_agent.api.review" in names
    assert "vent_agent.api" in names and "vent_agent.api.sse" in names


def test_run_bodies_live_below_the_routes() -> None:
    """The review and click run bodies are in their domain packages, which the chat service uses."""
    from vent_agent.interpret import run as click_run
    from vent_agent.review.service import run as review

    assert callable(review.review_run) and callable(review.review_body)
    assert callable(click_run.interpret_click) and callable(click_run.click_body)
    chat_imports = _imports(PACKAGE / "chat" / "service.py")
    assert "vent_agent.review.service.run.review_run" in chat_imports
