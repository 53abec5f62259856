"""A tiny unused-import checker that reports like flake8 (``path:line:col: F401 'name' imported but unused``).

The demo's sample CI runs it in place of flake8 (so ``healer demo`` needs nothing installed), and the demo
uses it as the healer's ``verify-command``. It knows one rule, on purpose: it is a sample, not a linter.

    python -m healer.demo.lint [PATH ...]      # exit 1 when it finds something
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path


def unused_imports(source: str, filename: str) -> Iterator[str]:
    """flake8-style F401 lines for the names a module imports and never uses."""
    tree = ast.parse(source, filename)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used |= {
        node.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = (alias.asname or alias.name).split(".", 1)[0]
                if bound not in used and alias.name != "*":
                    shown = alias.name if isinstance(node, ast.Import) else f"{node.module}.{alias.name}"
                    where = f"{filename}:{node.lineno}:{node.col_offset + 1}"
                    yield f"{where}: F401 '{shown}' imported but unused"


def _files(paths: Sequence[str]) -> Iterator[Path]:
    for raw in paths or ["."]:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(
                p for p in path.rglob("*.py") if not any(part.startswith(".") for part in p.parts)
            )
        else:
            yield path


def main(argv: Sequence[str] | None = None) -> int:
    found = 0
    for path in _files(list(sys.argv[1:] if argv is None else argv)):
        for line in unused_imports(path.read_text(encoding="utf-8"), path.as_posix()):
            print(line)
            found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
