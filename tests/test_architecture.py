"""The rooms of the house and what each may import (docs/architecture.md).

Every module-level import of a project module is read from the source: a room
may import from the rooms below it and from itself, never from one above it;
``engine`` and ``projections`` import nothing from ``adapters``, ``engine``
nothing from ``projections``; and no project module is imported inside a
function to hide a loop (``adapters/cli`` alone imports heavy subcommands
lazily, so that ``candidates`` starts fast, and the store its PostgreSQL modules,
so that a store on SQLite never loads the driver).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from adapters.store.door import Store

ROOT = Path(__file__).resolve().parents[1]

ENGINE_TOP = {"dispatch"}
"""Top-level engine modules that route to every chapter (above all of them)."""
INTERFACES = {"engine.world"}
"""Modules of typing protocols only (what a decision may read): every room may import
them, and the state types they name come from the rooms they describe."""
ENGINE_RANK = {
    "core": 0,
    "clock": 1,
    "tournament": 2,
    "qualification": 2,
    "game": 3,
    "arbiter": 4,
    "standings": 4,
    "audit": 5,
    "top": 6,
}
"""engine/: the core (events, commands, errors, rules, time formats), then the chapters
of the rulebook in the order they build on one another, then the dispatch."""
ADAPTER_RANK = {
    "host": 0,
    "store": 1,
    "formats": 2,
    "audit": 3,
    "dgt": 3,
    "gateway": 3,
    "analysis": 3,
    "watch": 3,
    "cli": 4,
}
"""adapters/: the host's clock and settings; the store (its one door, cache, views, chain,
kept projections, queries); the formats of files in and out; the audit, the devices, the
live outputs, the engine's analysis and the timers; the command line. The generator of
docs/commands.md is in tools/."""
TOP_LEVEL_MODULES = {"__init__.py"}
"""The only modules directly under adapters/ (everything else lives in a room)."""
MAX_LINES = 650
"""About 600 lines: a file holds one concept a reader can keep in mind."""
SIZED_FOLDERS = ("engine", "adapters", "tools", "deploy")
"""Where ``MAX_LINES`` holds: the engine's chapters as much as the adapters' rooms."""
LONG_FILES = {
    "engine/events.py": "declarative tables: every event class and its fields, field by field",
}
"""Declarative tables allowed over ``MAX_LINES``, each by name with the reason."""
LAYER_RANK = {"engine": 0, "projections": 1, "adapters": 2}


def room(module: str) -> tuple[int, int, str]:
    """(layer rank, rank inside the layer, name) of a project module."""
    parts = module.split(".")
    layer = parts[0]
    if layer == "engine":
        if len(parts) == 1:
            name = "core"
        elif (ROOT / "engine" / parts[1]).is_dir():
            name = parts[1]
        else:
            name = "top" if parts[1] in ENGINE_TOP else "core"
        return LAYER_RANK[layer], ENGINE_RANK[name], f"engine.{name}"
    if layer == "adapters":
        name = parts[1] if len(parts) > 1 else "store"
        return LAYER_RANK[layer], ADAPTER_RANK[name], f"adapters.{name}"
    return LAYER_RANK[layer], 0, layer


def modules() -> list[tuple[str, Path]]:
    out = []
    for layer in LAYER_RANK:
        for path in sorted((ROOT / layer).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out.append((name.removesuffix(".__init__"), path))
    return out


def project_imports(tree: ast.Module) -> list[tuple[ast.stmt, str]]:
    found: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            names += [f"{node.module}.{a.name}" for a in node.names if node.module in LAYER_RANK]
        for name in names:
            if name.split(".")[0] in LAYER_RANK:
                found.append((node, name))
    return found


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


MODULES = modules()


@pytest.mark.parametrize("module,path", MODULES, ids=[m for m, _ in MODULES])
def test_no_room_imports_from_a_room_above_it(module: str, path: Path) -> None:
    if module in INTERFACES:
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mine = room(module)
    wrong = [
        f"line {node.lineno}: {name} ({room(name)[2]})"
        for node, name in project_imports(tree)
        if is_module(name)
        and name not in INTERFACES
        and room(name)[:2] > mine[:2]
        and room(name)[2] != mine[2]
    ]
    assert wrong == [], f"{module} ({mine[2]}) imports from above it: {wrong}"


EAGER = [(m, p) for m, p in MODULES if not m.startswith("adapters.cli")]
"""Every module but the command line's, which imports heavy subcommands when they run."""


DRIVER_ONLY = {"adapters.store.postgres", "adapters.store.postgres_log_writer"}
"""The store's modules that load the PostgreSQL driver (psycopg, eventsourcing.postgres:
about a fifth of a second): imported where a PostgreSQL store is opened, not before."""


@pytest.mark.parametrize("module,path", EAGER, ids=[m for m, _ in EAGER])
def test_no_function_level_import_of_a_project_module(module: str, path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    top |= {id(n) for node in tree.body if isinstance(node, ast.If) for n in node.body}
    hidden = [
        f"line {node.lineno}: {name}"
        for node, name in project_imports(tree)
        if id(node) not in top and name not in DRIVER_ONLY
    ]
    assert hidden == [], f"{module} imports inside a function: {hidden}"


def test_the_engine_and_the_projections_do_no_io_through_the_adapters() -> None:
    """The strongest rule, said on its own: the pure rooms never reach the adapters."""
    for module, path in MODULES:
        if module.startswith(("engine", "projections")):
            names = [n for _, n in project_imports(ast.parse(path.read_text(encoding="utf-8")))]
            assert not [n for n in names if n.startswith("adapters")], module
            if module.startswith("engine"):
                assert not [n for n in names if n.startswith("projections")], module


STORE_APPENDERS = {"adapters/formats/replay_log.py", "adapters/store/chain.py"}
"""The only modules that append events they did not decide: a log import (the events are
recorded facts) and the seals (the audit chain's own events)."""


def store_appends(path: Path) -> list[int]:
    """Lines of ``path`` that call ``append`` on a store (``store``, ``self.store``,
    ``target_store`` ...); a view forwarding to its store (``adapters/store/views.py``) is
    checked at its callers."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
        ):
            continue
        receiver = ast.unparse(node.func.value).lower()
        if path.name == "views.py" and receiver == "self.store":
            continue  # a tournament's view forwarding to its store: callers are checked
        if receiver.rsplit(".", 1)[-1].endswith("store"):
            lines.append(node.lineno)
    return lines


def test_every_event_is_decided_in_the_engine_but_log_imports_and_seals() -> None:
    """Commands go through ``decide`` (``Store.execute``, ``execute_many``, ``execute_all``);
    ``Store.append`` is left to the replay of a log and to the seals."""
    found = {}
    for layer in ("adapters", "engine", "projections", "bench"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            lines = store_appends(path)
            if lines and where not in STORE_APPENDERS:
                found[where] = lines
    assert found == {}, f"events appended without a decision: {found}"
    assert all(store_appends(ROOT / where) for where in STORE_APPENDERS), "the scan finds none"


def test_adapters_is_rooms_with_no_heap_of_modules_at_its_top() -> None:
    top = {p.name for p in (ROOT / "adapters").glob("*.py")}
    assert top <= TOP_LEVEL_MODULES, f"modules outside a room: {sorted(top - TOP_LEVEL_MODULES)}"
    rooms = {p.name for p in (ROOT / "adapters").iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(ADAPTER_RANK), "a room without a rank, or a rank left"


def test_every_room_is_drawn_in_the_architecture_document() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [r for r in ADAPTER_RANK if f"adapters/{r}/" not in text]
    assert missing == [], f"rooms docs/architecture.md does not describe: {missing}"


def test_the_runtime_never_imports_the_tools() -> None:
    """tools/ builds what the project ships (the sample); the package never needs it."""
    found = [
        (module, name)
        for module, path in MODULES
        for _, name in project_imports_any(ast.parse(path.read_text(encoding="utf-8")))
        if name.split(".")[0] == "tools"
    ]
    assert found == []


def project_imports_any(tree: ast.Module) -> list[tuple[ast.stmt, str]]:
    """Every imported module name of a tree (project or not)."""
    found: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node, node.module))
    return found


def test_no_file_over_about_600_lines() -> None:
    long = {}
    for folder in SIZED_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES and where not in LONG_FILES:
                long[where] = lines
    assert long == {}, f"files over {MAX_LINES} lines: {long}"


def test_every_file_exempt_from_the_size_rule_exists_and_needs_it() -> None:
    """An exemption names a file that is there, in a folder the rule holds, and over the
    limit: one split below it, or gone, takes its exemption with it."""
    for where in LONG_FILES:
        path = ROOT / where
        assert where.split("/")[0] in SIZED_FOLDERS and path.exists(), where
        assert len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES, where


def store_imports() -> dict[str, set[str]]:
    """Module of ``adapters/store`` -> the modules of ``adapters/store`` it imports: every
    import in its source (at the top, in a function, under ``TYPE_CHECKING``), the
    package itself (``adapters/store/__init__.py``, which re-exports) left out."""
    folder = ROOT / "adapters" / "store"
    graph: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[path.stem] = {
            name.removeprefix("adapters.store.")
            for name in names
            if name.startswith("adapters.store.") and is_module(name)
        } - {path.stem}
    return graph


def test_no_import_cycle_among_the_store_modules() -> None:
    """Each part of the store imports in one direction (door -> decisions -> registry ->
    views -> cache, ...): no module of ``adapters/store`` reaches itself again through
    what it imports, not even through a lazy or a typing-only import."""
    graph = store_imports()
    assert {"door", "cache", "views", "registry", "writer"} <= set(graph), "the scan finds none"
    cycles = []
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycles.append([*path[path.index(module) :], module])
            return
        if module in done:
            return
        for imported in sorted(graph.get(module, ())):
            visit(imported, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert cycles == [], f"import cycles in adapters/store: {cycles}"


STORE_METHODS = 15
"""At most this many methods on the store's door, inherited ones included."""


def test_the_store_is_a_door_of_few_methods_holding_its_parts() -> None:
    """``Store`` holds its parts (cache, registry, decider, writer) instead of inheriting
    them: it derives from ``object`` alone, and its methods, counted as the functions and
    properties defined by the class and every base but ``object`` (``__init__`` and
    private ones included), are at most ``STORE_METHODS``."""
    assert Store.__bases__ == (object,)
    methods = {
        name
        for cls in Store.__mro__
        if cls is not object
        for name, value in vars(cls).items()
        if inspect.isfunction(value) or isinstance(value, property | classmethod | staticmethod)
    }
    assert len(methods) <= STORE_METHODS, sorted(methods)
    added = {n for n in set(dir(Store)) - set(dir(object)) if callable(getattr(Store, n))}
    assert added <= methods, "every callable dir() adds beyond object is counted above"
