"""The unified diff model: ``git diff`` output → files and hunks.

Handles what ``git diff`` writes: rename and copy detection or ``--no-renames``, new, deleted and
mode-changed files, binary files (``Binary files … differ`` and ``--binary`` patches), C-quoted paths
(``core.quotePath``), ``\\ No newline at end of file``, and plain unified diffs without git's header.
Hunk bodies are read by the counts in their ``@@`` header, so a content line that looks like a header
(``+++ b/x``) stays content. Pure; never raises on any text.
"""

from __future__ import annotations

import base64
import re
import zlib
from dataclasses import dataclass, field

__all__ = ["DiffLine", "FileChange", "parse_diff"]


@dataclass(frozen=True)
class DiffLine:
    """One line of a hunk."""

    kind: str  # "+", "-" or " "
    text: str
    number: int  # line number in the new file for "+" and " ", in the old file for "-"


@dataclass(frozen=True)
class FileChange:
    """One file of a unified diff."""

    old_path: str | None  # None for a new file
    new_path: str | None  # None for a deleted file
    old_mode: str = ""
    new_mode: str = ""
    binary: bool = False
    # the diff says the file was deleted but shows no content (``git diff -D``)
    content_hidden: bool = False
    # of a ``GIT binary patch``: the new content's size in bytes, and whether that content is text (None: the
    # patch is a delta, or there is no patch, only ``Binary files … differ``)
    binary_size: int | None = None
    binary_text: bool | None = None
    hunks: tuple[tuple[DiffLine, ...], ...] = field(default=(), repr=False)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p))

    @property
    def deleted(self) -> bool:
        return self.new_path is None

    @property
    def added_lines(self) -> int:
        return sum(1 for hunk in self.hunks for line in hunk if line.kind == "+")

    @property
    def removed_lines(self) -> int:
        return sum(1 for hunk in self.hunks for line in hunk if line.kind == "-")


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_BINARY = re.compile(r"^Binary files (.+) and (.+) differ$")
_OCTAL = re.compile(rb"\\([0-7]{1,3})")
_C_ESCAPES = {
    "n": "\n",
    "t": "\t",
    '"': '"',
    "\\": "\\",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "r": "\r",
    "v": "\v",
}


def _unquote(raw: str) -> str:
    """Undo git's C-style quoting of a path (``core.quotePath``): ``"a/t\\303\\251st"`` → ``a/tést``."""
    raw = raw.strip()
    if len(raw) < 2 or not (raw.startswith('"') and raw.endswith('"')):
        return raw
    body = raw[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            match = _OCTAL.match(body[i:].encode("utf-8", "surrogateescape"))
            if match:
                out.append(int(match.group(1), 8) & 0xFF)
                i += len(match.group(0))
                continue
            out.extend(_C_ESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape"))
            i += 2
            continue
        out.extend(char.encode("utf-8", "surrogateescape"))
        i += 1
    return out.decode("utf-8", "replace")


def _strip_prefix(path: str) -> str | None:
    """``a/x`` → ``x``; ``/dev/null`` → None. Paths without a prefix (``--no-prefix``) are kept."""
    path = _unquote(path.split("\t", 1)[0] if not path.startswith('"') else path)
    if path == "/dev/null":
        return None
    if len(path) > 2 and path[1] == "/" and path[0] in "abciwo":
        return path[2:]
    return path


def _split_git_header(rest: str) -> tuple[str | None, str | None]:
    """The two paths of ``diff --git <a> <b>``; ambiguous when unquoted paths contain spaces."""
    rest = rest.strip()
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        while end != -1 and rest[end - 1] == "\\":
            end = rest.find('" ', end + 1)
        if end == -1:
            return None, None
        return _strip_prefix(rest[: end + 1]), _strip_prefix(rest[end + 2 :])
    if rest.endswith('"'):
        start = rest.rfind(' "')
        return (
            (_strip_prefix(rest[:start]), _strip_prefix(rest[start + 1 :])) if start != -1 else (None, None)
        )
    # Unquoted: both halves are the same path for anything but a rename, so split in the middle.
    if len(rest) % 2 == 1:
        half = len(rest) // 2
        if rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
            return _strip_prefix(rest[:half]), _strip_prefix(rest[half + 1 :])
    parts = rest.split(" ")
    if len(parts) == 2:
        return _strip_prefix(parts[0]), _strip_prefix(parts[1])
    return None, None


class _FileBuilder:
    def __init__(self, old: str | None, new: str | None) -> None:
        self.old = old
        self.new = new
        self.old_mode = ""
        self.new_mode = ""
        self.binary = False
        self.binary_size: int | None = None
        self.binary_text: bool | None = None
        self.new_file = False
        self.deleted_file = False
        self.hunks: list[tuple[DiffLine, ...]] = []

    def build(self) -> FileChange:
        old, new = self.old, self.new
        if self.new_file:
            old = None
        if self.deleted_file:
            new = None
        return FileChange(
            old_path=old,
            new_path=new,
            old_mode=self.old_mode,
            new_mode=self.new_mode,
            binary=self.binary,
            binary_size=self.binary_size,
            binary_text=self.binary_text,
            content_hidden=self.deleted_file and not self.hunks and not self.binary,
            hunks=tuple(self.hunks),
        )


def parse_diff(diff: str) -> tuple[FileChange, ...]:
    """Parse ``git diff`` output into files and hunks. Unknown lines are skipped; nothing raises."""
    files: list[FileChange] = []
    current: _FileBuilder | None = None
    lines = diff.split("\n")
    i = 0

    def flush() -> None:
        nonlocal current
        if current is not None and (current.old is not None or current.new is not None):
            files.append(current.build())
        current = None

    while i < len(lines):
        line = lines[i].removesuffix("\r")
        i += 1
        if line.startswith("diff --git "):
            flush()
            current = _FileBuilder(*_split_git_header(line[len("diff --git ") :]))
        elif current is None and line.startswith("--- ") and i < len(lines) and lines[i].startswith("+++ "):
            # a plain unified diff without git's header
            current = _FileBuilder(None, None)
            i -= 1
            continue
        elif (
            current is not None
            and current.hunks
            and line.startswith("--- ")
            and i < len(lines)
            and lines[i].startswith("+++ ")
        ):
            # the next file of a plain unified diff
            flush()
            current = _FileBuilder(None, None)
        if current is None:
            continue
        if line.startswith("diff --git "):
            continue
        if line.startswith("new file mode "):
            current.new_file, current.new_mode = True, line.split()[-1]
        elif line.startswith("deleted file mode "):
            current.deleted_file, current.old_mode = True, line.split()[-1]
        elif line.startswith("old mode "):
            current.old_mode = line.split()[-1]
        elif line.startswith("new mode "):
            current.new_mode = line.split()[-1]
        elif line.startswith(("rename from ", "copy from ")):
            current.old = _unquote(line.split(" ", 2)[2])
        elif line.startswith(("rename to ", "copy to ")):
            current.new = _unquote(line.split(" ", 2)[2])
        elif line.startswith("index "):
            parts = line.split()
            if len(parts) == 3 and not current.new_mode:
                current.old_mode = current.old_mode or parts[2]
                current.new_mode = parts[2]
        elif line.startswith("--- "):
            path = _strip_prefix(line[4:])
            if path is None:
                current.new_file = True
            elif current.old is None or not current.hunks:
                current.old = path
        elif line.startswith("+++ "):
            path = _strip_prefix(line[4:])
            if path is None:
                current.deleted_file = True
            elif current.new is None or not current.hunks:
                current.new = path
        elif line.startswith("Binary files ") or line == "GIT binary patch":
            current.binary = True
            names = _BINARY.match(line)
            if names and current.old is None and current.new is None:
                current.old, current.new = _strip_prefix(names.group(1)), _strip_prefix(names.group(2))
                current.new_file, current.deleted_file = current.old is None, current.new is None
            if line == "GIT binary patch":
                # base85 payload until the next file header; only its size and kind are judged
                current.binary_size, current.binary_text = _binary_patch(lines, i)
                while i < len(lines) and not lines[i].startswith("diff --git "):
                    i += 1
        elif line.startswith("@@ "):
            hunk, i = _read_hunk(line, lines, i)
            current.hunks.append(hunk)
    flush()
    return tuple(files)


_PATCH_HEADER = re.compile(r"^(literal|delta) (\d{1,12})$")
# a literal this large is not decoded to see whether it is text (the size alone decides)
_MAX_DECODE = 1024 * 1024


def _binary_patch(lines: list[str], i: int) -> tuple[int | None, bool | None]:
    """The forward half of a ``GIT binary patch`` starting at ``lines[i]``: the new content's size in bytes
    and
    whether it is text. A ``literal`` holds the whole content (deflated, base85 lines whose first character
    gives the line's byte count); a ``delta`` starts with the base's and the result's sizes (git's
    ``diff-delta`` format, little-endian base-128 numbers)."""
    header = _PATCH_HEADER.match(lines[i].removesuffix("\r")) if i < len(lines) else None
    if not header:
        return None, None
    kind, size = header.group(1), int(header.group(2))
    if kind == "literal" and size > _MAX_DECODE:
        return size, False
    data = bytearray()
    for raw in lines[i + 1 :]:
        raw = raw.removesuffix("\r")
        if not raw:
            break
        count = ord(raw[0]) - (ord("A") - 1 if raw[0] <= "Z" else ord("a") - 27)
        try:
            data += base64.b85decode(raw[1:])[: max(0, count)]
        except ValueError:
            return (size if kind == "literal" else None), None
    try:
        content = zlib.decompressobj().decompress(bytes(data), _MAX_DECODE + 1)
    except zlib.error:
        return (size if kind == "literal" else None), None
    if kind == "literal":
        return size, _is_text(content)
    _, at = _varint(content, 0)
    target, _ = _varint(content, at)
    return target, None


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data):
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return value, at


def _is_text(content: bytes) -> bool:
    if b"\0" in content:
        return False
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _read_hunk(header: str, lines: list[str], i: int) -> tuple[tuple[DiffLine, ...], int]:
    """Read one hunk body, trusting the header's line counts so that content lines never pass for headers."""
    match = _HUNK.match(header)
    out: list[DiffLine] = []
    if not match:
        return (), i
    old_no, new_no = int(match.group(1)), int(match.group(3))
    old_left = int(match.group(2)) if match.group(2) is not None else 1
    new_left = int(match.group(4)) if match.group(4) is not None else 1
    while i < len(lines) and (old_left > 0 or new_left > 0):
        raw = lines[i]
        if raw.startswith("\\"):  # "\ No newline at end of file"
            i += 1
            continue
        kind, text = (raw[:1], raw[1:]) if raw else (" ", "")
        if kind == "+" and new_left > 0:
            out.append(DiffLine("+", text, new_no))
            new_no += 1
            new_left -= 1
        elif kind == "-" and old_left > 0:
            out.append(DiffLine("-", text, old_no))
            old_no += 1
            old_left -= 1
        elif kind == " " and old_left > 0 and new_left > 0:
            out.append(DiffLine(" ", text, new_no))
            old_no += 1
            new_no += 1
            old_left -= 1
            new_left -= 1
        else:
            break  # a truncated or hand-edited hunk: stop at the first line that does not fit
        i += 1
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return tuple(out), i
