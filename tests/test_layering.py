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


ENGINE_MAY_NOT_IMPORT = ("vent_agent.runs", "vent_agent.store", "reports")
"""What the review engine (``vent_agent/review/`` except its service room, which runs and publishes
reviews) may not import: the run manager, the store and the report renderers sit above it."""


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_review_engine_imports_nothing_from_runs_store_or_reports() -> None:
    engine = [
        p
        for p in sorted((PACKAGE / "review").rglob("*.py"))
        if p.relative_to(PACKAGE / "review").parts[0] != "service"
    ]
    assert len(engine) > 20, "the walk found too few review modules: the package layout changed"
    offenders = {
        str(p.relative_to(PACKAGE.parent)): sorted(
            {n for n in _imports(p) if _under(n, ENGINE_MAY_NOT_IMPORT)}
        )
        for p in engine
    }
    assert {k: v for k, v in offenders.items() if v} == {}


ROOMED = ("review", "documents")
"""Packages whose rooms (sub-packages) and top-level modules must not import each other in a circle."""


def _room(name: str, rooms: set[str]) -> str | None:
    """The room (``vent_agent.review.checks``) or top-level module (``vent_agent.review.rules``) that the
    dotted ``name`` lies in, None outside the roomed packages."""
    hits = [r for r in rooms if name == r or name.startswith(r + ".")]
    return max(hits, key=len) if hits else None


def _room_graph() -> dict[str, set[str]]:
    """Room → the rooms it imports, over the roomed packages (a room's imports of itself left out)."""
    rooms: set[str] = set()
    for pkg in ROOMED:
        rooms.add(f"vent_agent.{pkg}")
        for child in (PACKAGE / pkg).iterdir():
            if child.is_dir() and (child / "__init__.py").exists():
                rooms.add(f"vent_agent.{pkg}.{child.name}")
            elif child.suffix == ".py" and child.name != "__init__.py":
                rooms.add(f"vent_agent.{pkg}.{child.stem}")
    graph: dict[str, set[str]] = {r: set() for r in rooms}
    for pkg in ROOMED:
        for path in (PACKAGE / pkg).rglob("*.py"):
            here = _room(_module_name(path), rooms)
            assert here is not None
            graph[here] |= {r for n in _imports(path) if (r := _room(n, rooms)) not in (None, here)}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of ``graph`` (depth-first), as the nodes in order."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            found.append(path[path.index(node) :] + [node])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, [*path, node])
        done.add(node)

    for node in sorted(graph):
        visit(node, [])
    return found


KNOWN_ROOM_CYCLES: list[list[str]] = []
"""Cycles between rooms that remain, each with why (none now)."""


def test_the_review_and_document_rooms_import_each_other_without_a_cycle() -> None:
    graph = _room_graph()
    assert {"vent_agent.review.checks", "vent_agent.review.service", "vent_agent.documents.plan"} <= set(
        graph
    )
    assert "vent_agent.review.judgement" in graph["vent_agent.review.checks"], "the walk misses imports"
    assert _cycles(graph) == KNOWN_ROOM_CYCLES


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The checker itself: a three-room circle is found, a chain is not."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
