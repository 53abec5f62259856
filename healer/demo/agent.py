"""The demo's sample agent: a deterministic stand-in for an LLM agent command.

It reads the heal frame (``$HEALER_FRAME``, else stdin), finds flake8's ``F401 '…' imported but unused``
lines in the fenced log excerpt, and deletes exactly those import lines from the files in the checkout it
runs in. It touches nothing else and explains what it did on stdout, as an agent's notes would.

    HEALER_AGENT_COMMAND="python -m healer.demo.agent"
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

# e.g. "widgets/calc.py:3:1: F401 'os' imported but unused" (a log line may carry a timestamp before it)
_F401 = re.compile(r"(?P<path>[\w./-]+\.py):(?P<line>\d+):\d+: F401 '(?P<name>[\w.]+)' imported but unused")


def main() -> int:
    frame_path = os.environ.get("HEALER_FRAME")
    frame = Path(frame_path).read_text(encoding="utf-8") if frame_path else sys.stdin.read()
    findings = sorted({(m["path"], int(m["line"]), m["name"]) for m in _F401.finditer(frame)}, reverse=True)
    if not findings:
        print("sample agent: the frame names no unused import; nothing to change.")
        return 0
    root = Path.cwd().resolve()
    for path_text, line_number, name in findings:
        path = (root / path_text).resolve()
        if root not in path.parents or not path.is_file():
            print(f"sample agent: skipped {path_text}: not a file in this checkout")
            continue
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        line = lines[line_number - 1] if 0 < line_number <= len(lines) else ""
        short = name.rsplit(".", 1)[-1]
        if not re.fullmatch(rf"\s*(import {re.escape(name)}|from [\w.]+ import {re.escape(short)})\s*", line):
            print(f"sample agent: left {path_text}:{line_number} alone: it is not a plain import of {name}")
            continue
        del lines[line_number - 1]
        # keep two blank lines before the next definition, no more (what a formatter would leave)
        text = re.sub(r"\n{4,}", "\n\n\n", "".join(lines))
        path.write_text(text, encoding="utf-8")
        print(f"sample agent: removed the unused import of `{name}` from {path_text}:{line_number}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
