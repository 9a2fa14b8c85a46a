"""The layout keeps to docs/DESIGN.md: the apps import one way (the import-linter contracts
in pyproject.toml), no project module takes part in an import cycle (function-local imports
count: they are cycles that merely wait until run time), and no file outgrows 450 lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
APPS = ("public", "syndication", "stories", "manifests", "newsroom")
MAX_LINES = 450


def test_apps_import_only_the_apps_after_them():
    # lint-imports, as CI and `make lint` run it; --no-cache writes nothing into the tree.
    run = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"]
        + ["--no-cache", "--no-logo", "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_cycles():
    imports = grimp.build_graph(*APPS, cache_dir=None)
    modules = {m for m in imports.modules if ".migrations" not in m}
    graph = {m: imports.find_modules_directly_imported_by(m) & modules for m in modules}
    cycles = [" <-> ".join(c) for c in _cycles(graph)]
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_no_file_over_450_lines():
    files = [p for app in (*APPS, "bench") for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts]
    files += list(ROOT.glob("*.py"))
    too_long = {}
    for path in files:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            too_long[str(path.relative_to(ROOT))] = lines
    assert too_long == {}, f"files over {MAX_LINES} lines: {too_long}"
