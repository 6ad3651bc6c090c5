"""The architecture's rules (docs/ARCHITECTURE.md), checked on the whole tree.

- the Qt-free core never imports Qt (two ways: a subprocess that imports every
  core module, and import-linter's contracts);
- the packages keep their layers (import-linter ``layers`` contracts);
- no import cycle between modules, ``TYPE_CHECKING`` imports included;
- every module of ``app`` is imported by at least one test.
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import app

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


def app_modules(prefix: str = "app.") -> list[str]:
    """Every module and package under ``app`` (walked, not globbed)."""
    found = ["app"]
    for info in pkgutil.walk_packages(app.__path__, prefix="app."):
        found.append(info.name)
    return sorted(m for m in found if m == prefix.rstrip(".") or m.startswith(prefix))


def module_file(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def imported_modules(path: Path, package: str) -> Iterator[str]:
    """The ``app`` modules a file imports, at any depth (functions, TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            yield base
            for alias in node.names:
                yield f"{base}.{alias.name}"  # "from pkg import module"


def import_graph() -> dict[str, set[str]]:
    modules = set(app_modules())
    graph: dict[str, set[str]] = {}
    for module in modules:
        path = module_file(module)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        graph[module] = {m for m in imported_modules(path, package) if m in modules and m != module}
    return graph


def test_importing_the_core_does_not_load_qt() -> None:
    modules = app_modules("app.core.")
    assert "app.core.backends.remote.openai" in modules and "app.core.store.store" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = [m for m in sys.modules if m.startswith('PyQt6')]\n"
        "print(','.join(bad)); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"app.core imported Qt: {proc.stdout} {proc.stderr}"


def test_import_linter_contracts_hold() -> None:
    # import-linter is a test dependency (pyproject's [test] extra): never skipped.
    exe = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "broken" not in proc.stdout.lower() or " 0 broken" in proc.stdout, proc.stdout


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (a list of modules, first == last), or None."""
    # A package's __init__ importing its own submodules is not a cycle of concern
    # (Python runs __init__ first); every other edge counts.
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_find_cycle_finds_a_type_only_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles_type_only_ones_included() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_module_is_imported_by_a_test() -> None:
    tests_dir = ROOT / "tests"
    imported: set[str] = set()
    for path in tests_dir.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        package = ".".join(rel.parts[:-1])
        imported.update(imported_modules(path, package))
        # string targets such as monkeypatch.setattr("app.x.y.name", ...)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("app."):
                parts = node.value.split(".")
                imported.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
    modules = [m for m in app_modules() if not module_file(m).name == "__init__.py" and m != "app.__main__"]
    missing = [m for m in modules if m not in imported]
    assert not missing, f"no test imports: {missing}"


def test_the_architecture_page_names_every_module() -> None:
    """docs/ARCHITECTURE.md's package map and the tree agree: every module of
    app/ is named there (as ``<name>.py``), and every ``<name>.py`` named in
    the map's code block exists."""
    import re

    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    files = [p for p in (ROOT / "app").rglob("*.py") if p.name != "__init__.py"]
    missing = [str(p.relative_to(ROOT)) for p in files if not re.search(rf"(?<![\w]){re.escape(p.name)}", doc)]
    assert not missing, f"docs/ARCHITECTURE.md does not name: {missing}"
    block = doc.split("```")[1]
    named = set(re.findall(r"(?<![\w/])(\w+)\.py", block))
    known = {p.stem for p in files} | {"__main__"}
    assert not named - known, f"docs/ARCHITECTURE.md names modules that do not exist: {sorted(named - known)}"
