"""One plain command line from untrusted text (the command an agent names as the one that makes its change).

It is only ever run as an argv list (never through a shell), like a fix rule's command; a character a shell
would read specially could therefore only be a mistake or an attempt, and such a line does not count.
"""

from __future__ import annotations

MAX_COMMAND_CHARS = 300
_SHELL = frozenset(";&|<>`$(){}[]*?!~#\\\"'")


def one_line_command(text: str) -> str:
    """The command an agent named (untrusted): its first line, stripped; "" when it is not one plain
    command: longer than :data:`MAX_COMMAND_CHARS`, with a control character or a shell metacharacter (it is
    only ever run as an argv list, never through a shell, so such a character could only be a mistake or an
    attempt)."""
    first = text.strip().split("\n", 1)[0].strip() if text else ""
    if not first or len(first) > MAX_COMMAND_CHARS or "\n" in text.strip():
        return ""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in first) or set(first) & _SHELL:
        return ""
    return " ".join(first.split())
