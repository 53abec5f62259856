"""The heal bundle: the one file between the heal stage (runs PR code) and the deliver stage (holds a token).

The deliver stage reads it as untrusted input. A fork's code may have run on the machine that wrote it, and
that code can rewrite the file, digests included: the digests only catch a truncated or damaged file. What
stops a forgery is that every field is checked again here, the identity against what the deliver stage learns
from GitHub itself (``check_identity``), and the diff against what git could be led to do (``diff_problems``).
Pure, but for reading and writing the one file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BUNDLE_NAME = "ci-healer-bundle.json"  # the file name inside the artifact
BUNDLE_VERSION = 1
MAX_BUNDLE_BYTES = 16 * 1024 * 1024
MAX_DIFF_BYTES = 4 * 1024 * 1024
MAX_CHECKS = 50
MAX_CHECK_NAME = 200
MAX_RECORD_BYTES = 1024 * 1024
MAX_RECORD_DEPTH = 16
MAX_PROBLEMS = 20
_MAX_NUMBER = 2**53 - 1  # the largest integer every JSON reader keeps exact; run ids are far below it

_SHA = re.compile(r"[0-9a-f]{40}")
_REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
_FIELDS = ("repository", "pr", "run_id", "run_attempt", "head_sha", "base_sha", "checks", "diff", "record")
_AGAIN = "the deliver stage refuses it; re-run the heal, and if this repeats, suspect the PR's code"


class BundleError(Exception):
    """A bundle the deliver stage refuses; the message says what and what to do (never a secret)."""


@dataclass(frozen=True)
class BundleCheck:
    check: str  # the check (job) name, as the plan names it
    attempt: int  # this heal's attempt number for the check (1..)


@dataclass(frozen=True)
class HealBundle:
    """What the heal stage hands on: the change, the commits it applies to, and the attempt's record."""

    repository: str  # owner/name of the base repository
    pr: int  # pull request number
    run_id: int  # the workflow run healed
    run_attempt: int
    head_sha: str  # 40 hex: the PR head the diff applies to
    base_sha: str  # 40 hex: the PR base when the heal ran
    checks: tuple[BundleCheck, ...]
    diff: str  # ``git diff --cached --binary --no-renames`` of the change ("" for none)
    record: Mapping[str, Any]  # the attempt's record: what ran, verification, usage, notes (JSON values only)


def _need(ok: object, what: str) -> None:
    if not ok:
        raise BundleError(f"{what}: {_AGAIN}")


def _show(value: object, limit: int = 80) -> str:
    """A forged value fit to quote: ``repr`` escapes control characters (no new line, no workflow command)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: JSON can carry one, git and GitHub cannot
        return False
    return True


def _number(value: Any, name: str) -> None:
    # ``type(...) is int``: JSON's true is a Python int, and must not pass for PR #1
    ok = type(value) is int and 0 < value <= _MAX_NUMBER
    _need(ok, f"the heal bundle's {name} is {_show(value)}, not a positive whole number")


def _plain(value: object, depth: int = 0) -> Any:
    """``value`` as plain JSON values (tuples become lists): the record is quoted into comments and the
    ledger later, so it holds nothing a JSON writer, a UTF-8 encoder or a recursive reader would choke on."""
    _need(depth <= MAX_RECORD_DEPTH, f"the heal bundle's record nests deeper than {MAX_RECORD_DEPTH}")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        _need(abs(value) <= _MAX_NUMBER, "the heal bundle's record holds a number too large")
        return int(value)
    if isinstance(value, float):
        _need(abs(value) < float("inf"), f"the heal bundle's record holds {value}, which JSON cannot")
        return float(value)
    if isinstance(value, str):
        _need(_utf8(value), "the heal bundle's record holds text that is not UTF-8")
        return str.__str__(value)  # a plain str, also of a str-valued enum
    if isinstance(value, Mapping):
        _need(all(isinstance(k, str) for k in value), "the heal bundle's record has a key that is no string")
        return {_plain(k, depth): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1) for item in value]
    raise BundleError(f"the heal bundle's record holds a {type(value).__name__}, not a JSON value: {_AGAIN}")


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _validate(bundle: HealBundle) -> HealBundle:
    """Every field checked, whoever built the bundle; the record returned as plain JSON values."""
    name = bundle.repository
    _need(isinstance(name, str) and _REPOSITORY.fullmatch(name), f"the heal bundle's repo {_show(name)}")
    for field in ("pr", "run_id", "run_attempt"):
        _number(getattr(bundle, field), field)
    for field in ("head_sha", "base_sha"):
        sha = getattr(bundle, field)
        _need(isinstance(sha, str) and _SHA.fullmatch(sha), f"the heal bundle's {field} {_show(sha)}")
    checks = bundle.checks
    ok = isinstance(checks, (tuple, list)) and 1 <= len(checks) <= MAX_CHECKS
    _need(ok, f"the heal bundle must name 1 to {MAX_CHECKS} checks")
    seen: set[str] = set()
    for item in checks:
        _need(isinstance(item, BundleCheck), f"the heal bundle's checks hold {_show(item)}")
        name = item.check
        # a check name is quoted into comments and logs: no line break, no workflow command, no bidi trick
        ok = isinstance(name, str) and 0 < len(name) <= MAX_CHECK_NAME and name.isprintable() and _utf8(name)
        why = f"empty, over {MAX_CHECK_NAME} characters, named twice or with control characters"
        _need(ok and name not in seen, f"the heal bundle's check {_show(name)} is {why}")
        seen.add(name)
        _number(item.attempt, f"attempt of check {_show(name)}")
    _need(isinstance(bundle.diff, str) and _utf8(bundle.diff), "the heal bundle's diff is not UTF-8 text")
    _need(isinstance(bundle.record, Mapping), "the heal bundle's record is not a JSON object")
    record = _plain(bundle.record)
    _need(
        len(_canonical(record)) <= MAX_RECORD_BYTES, f"the heal bundle's record is over {MAX_RECORD_BYTES} B"
    )
    return dataclasses.replace(bundle, checks=tuple(checks), record=record)


def _payload(bundle: HealBundle) -> dict[str, Any]:
    fields = {name: getattr(bundle, name) for name in _FIELDS}
    fields["checks"] = [{"check": c.check, "attempt": c.attempt} for c in bundle.checks]
    return {"version": BUNDLE_VERSION, **fields}


def _digests(payload: Mapping[str, Any]) -> dict[str, str]:
    parts = {"diff": payload["diff"], "record": _canonical(payload["record"]), "bundle": _canonical(payload)}
    return {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in parts.items()}


def write_bundle(path: Path, bundle: HealBundle) -> Path:
    """Write ``bundle`` as JSON (version, fields, sha256 digests of the diff, the canonical record and the
    whole) to ``path``, or to ``BUNDLE_NAME`` in it if it is a directory; return the file. The bundle is
    checked as the deliver stage will check it, so that a heal that cannot be delivered fails here."""
    payload = _payload(_validate(bundle))
    data = (json.dumps({**payload, "digests": _digests(payload)}, indent=1, sort_keys=True) + "\n").encode()
    if len(data) > MAX_BUNDLE_BYTES:
        size = f"{len(data)} bytes, over the {MAX_BUNDLE_BYTES} the deliver stage reads"
        raise BundleError(f"the heal bundle would be {size}: the change is too large to deliver")
    target = Path(path) / BUNDLE_NAME if Path(path).is_dir() else Path(path)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".bundle-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, target)  # whole or not at all: an upload never sees half a bundle
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # two readers may keep different copies of a duplicated key; a forger would count on it
    _need(len({key for key, _ in pairs}) == len(pairs), "the heal bundle names a key twice in one object")
    return dict(pairs)


def _no_constant(name: str) -> None:
    raise BundleError(f"the heal bundle holds {name}, which is not JSON: {_AGAIN}")


def read_bundle(path: Path, *, max_bytes: int = MAX_BUNDLE_BYTES) -> HealBundle:
    """Read and check a bundle (``path``, or ``BUNDLE_NAME`` in it). The forger chooses the file: its size
    is checked before it is read and no more than ``max_bytes`` is ever read; a symlink, device or fifo is
    refused. Every field is checked again, then the digests."""
    target = Path(path) / BUNDLE_NAME if Path(path).is_dir() else Path(path)
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise BundleError(f"cannot open the heal bundle {target} ({exc.strerror}): {_AGAIN}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        _need(stat.S_ISREG(info.st_mode), f"the heal bundle {target} is not a regular file")
        _need(info.st_size <= max_bytes, f"the heal bundle is {info.st_size} bytes, over {max_bytes}")
        raw = handle.read(max_bytes + 1)  # a file that grew after fstat is still read no further
    _need(len(raw) <= max_bytes, f"the heal bundle grew past {max_bytes} bytes while it was read")
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise BundleError(f"the heal bundle is not JSON ({type(exc).__name__}): {_AGAIN}") from None
    _need(isinstance(data, dict), "the heal bundle is not a JSON object")
    if (version := data.get("version")) != BUNDLE_VERSION or type(version) is not int:
        versions = f"version {_show(version)}, and this ci-healer reads version {BUNDLE_VERSION}"
        raise BundleError(f"the heal bundle has {versions}: run both stages from the same ci-healer ref")
    expected = {"version", "digests", *_FIELDS}
    _need(set(data) == expected, f"the heal bundle's fields are {_show(sorted(data), 300)}")
    checks = data["checks"]
    ok = isinstance(checks, list) and 1 <= len(checks) <= MAX_CHECKS
    _need(ok, f"the heal bundle must name 1 to {MAX_CHECKS} checks")
    for item in checks:
        ok = isinstance(item, dict) and set(item) == {"check", "attempt"}
        _need(ok, f"the heal bundle's check {_show(item)} is not a check and an attempt")
    fields = {name: data[name] for name in _FIELDS}
    bundle = _validate(HealBundle(**{**fields, "checks": tuple(BundleCheck(**item) for item in checks)}))
    digests = data["digests"]
    ok = isinstance(digests, dict) and set(digests) == {"diff", "record", "bundle"}
    _need(ok, "the heal bundle's digests are not those of its diff, record and whole")
    for name, digest in _digests(_payload(bundle)).items():
        why = "the file was cut short or edited after the heal stage wrote it"
        _need(
            digests.get(name) == digest, f"the heal bundle's {name} does not match its sha256 digest: {why}"
        )
    return bundle


def check_identity(
    bundle: HealBundle,
    *,
    repository: str,
    pr: int,
    run_id: int,
    run_attempt: int,
    head_sha: str,
    checks: Mapping[str, int],
) -> None:
    """BundleError unless ``bundle`` is for exactly this repository (case-insensitive, as GitHub's names are),
    PR, run and attempt, this head, and these checks with these attempt numbers. The deliver stage learns them
    from GitHub and its own plan, never from the bundle: a fork's code could write a well-formed bundle for
    another PR, replay one from an older run, or add a check to spend another attempt. ``head_sha`` is the
    PR's *current* head: a bundle made for an older commit is stale, and its diff could undo later work."""
    for what, theirs, ours in [
        ("repository", bundle.repository.lower(), repository.lower()),
        ("pull request", bundle.pr, pr),
        ("workflow run", bundle.run_id, run_id),
        ("run attempt", bundle.run_attempt, run_attempt),
    ]:
        _need(theirs == ours, f"the heal bundle is for {what} {_show(theirs)}, not {_show(ours)}")
    if bundle.head_sha != head_sha.lower():
        stale = f"commit {bundle.head_sha[:12]}, but the pull request's head is now {head_sha.lower()[:12]}"
        raise BundleError(f"the heal bundle's change is for {stale}: it is stale and is not delivered")
    theirs, ours = sorted((c.check, c.attempt) for c in bundle.checks), sorted(checks.items())
    _need(theirs == ours, f"the heal bundle is for the checks {_show(theirs, 300)}, not {_show(ours, 300)}")


_MODE_LINE = re.compile(r"(?:new file|deleted file|old|new) mode (.*)|index [0-9a-f]+\.\.[0-9a-f]+(?: (.*))?")
_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@.*")
_IN_QUOTES = r'"((?:[^"\\]|\\(?:[0-3][0-7]{2}|[abtnvfr"\\]))*)"'  # only the escapes git writes
_QUOTED, _QUOTED_PAIR = re.compile(_IN_QUOTES), re.compile(f"{_IN_QUOTES} {_IN_QUOTES}")
_ESCAPE = re.compile(r"\\([0-7]{3}|.)")
_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_MODE_KINDS = {"120000": "a symlink", "160000": "a submodule"}
# the healer writes --no-renames, so a rename or copy header is a forgery (a copy reads any file of the tree)
_FORGED = re.compile(r"(rename|copy) (from|to) |(dis)?similarity index ")


def _unquote(body: str) -> str:
    """Undo git's C-style quoting (``sp\\303\\244ce`` → ``späce``); ValueError for a name that is no UTF-8."""
    latin = body.encode("utf-8").decode("latin-1")  # one character a byte, so that \303\244 is two bytes
    raw = _ESCAPE.sub(lambda m: chr(int(m[1], 8)) if len(m[1]) == 3 else _ESCAPES[m[1]], latin)
    return raw.encode("latin-1").decode("utf-8")


def _header_paths(rest: str) -> tuple[str, str] | None:
    """The two paths of ``diff --git a/X b/Y``, without their prefixes; None if git would not write this."""
    half = len(rest) // 2
    try:
        if pair := _QUOTED_PAIR.fullmatch(rest):
            left, right = _unquote(pair[1]), _unquote(pair[2])
        elif '"' in rest or len(rest) % 2 == 0 or rest[half] != " ":
            return None  # unquoted paths are equal halves around the middle space; git quotes a path with '"'
        else:
            left, right = rest[:half], rest[half + 1 :]
    except ValueError:
        return None
    return (left[2:], right[2:]) if left.startswith("a/") and right.startswith("b/") else None


def _side_path(raw: str, prefix: str) -> str | None:
    """The path of ``--- a/X`` or ``+++ b/X`` (None for /dev/null, "" if unreadable); git ends it with a tab
    when it holds a space."""
    raw = raw.removesuffix("\t")
    try:
        raw = _unquote(quoted[1]) if (quoted := _QUOTED.fullmatch(raw)) else raw
    except ValueError:
        return ""
    return None if raw == "/dev/null" else raw[len(prefix) :] if raw.startswith(prefix) else ""


def _path_problem(path: str) -> str | None:
    """Why git must not write ``path``: out of the tree, into git's own files (a hook there runs in the
    deliver job), or a name that means something else to a person or another OS."""
    parts, shown = path.split("/"), _show(path)
    if path.startswith("/"):
        return f"the path {shown} is absolute"
    if ".." in parts:
        return f"the path {shown} climbs out of the tree with '..'"
    # case and trailing dots or spaces: macOS and Windows take ".GIT" and ".git." for ".git"
    if any(part.lower().rstrip(". ") == ".git" for part in parts):
        return f"the path {shown} is inside .git/"
    if not path.isprintable() or "\\" in path:
        return f"the path {shown} holds control characters or a backslash"
    return f"the path {shown} has an empty or '.' component" if {"", "."} & set(parts) else None


def diff_problems(diff: str, *, max_bytes: int = MAX_DIFF_BYTES) -> list[str]:
    """What the deliver stage refuses in ``diff`` before git ever sees it, each a sentence; [] for none.

    The forger writes the diff and ``git apply`` would obey it, so it must be what ``git diff --cached
    --binary --no-renames`` writes for text files, line by line: no path out of the tree or in ``.git/``, no
    symlink (a later write follows it out of the tree), no submodule (it fetches code from anywhere), no
    rename or copy, no binary content (no person can review it), no header whose two paths differ, no NUL, no
    line that is not part of a git diff. Hunks are read by the counts of their ``@@`` line, so their content
    is never taken for a header."""
    if "\0" in diff or not _utf8(diff):
        return ["the diff holds a NUL character or text that is not UTF-8: a text diff holds neither"]
    if (size := len(diff.encode("utf-8"))) > max_bytes:
        return [f"the diff is {size} bytes, more than the {max_bytes} a delivered change may be"]
    problems: list[str] = []
    seen: set[str] = set()
    state, path, old, new = "start", "", 0, 0  # old, new: the lines the current hunk still owes
    lines = diff.split("\n")  # not splitlines(): git ends lines with \n alone, and \r or \x0c is content
    for number, line in enumerate(lines[:-1] if lines[-1] == "" else lines, 1):
        if len(problems) >= MAX_PROBLEMS:
            problems.append(f"and more: only the first {MAX_PROBLEMS} problems are listed")
            break
        at = f"line {number}"
        if old > 0 or new > 0:
            kind = line[:1]
            old, new = old - (kind in (" ", "-")), new - (kind in (" ", "+"))
            # git diff writes " " even for an empty context line: a bare empty line is mangled or forged
            if kind not in (" ", "-", "+", "\\") or old < 0 or new < 0:
                problems.append(f"{at}: the hunk does not hold the lines its @@ header counts")
                old = new = 0
        elif line.startswith("diff --git "):
            pair = _header_paths(line[len("diff --git ") :])
            if pair is None or pair[0] != pair[1]:
                problems.append(f"{at}: the diff header's a/ and b/ paths differ or cannot be read")
            problems.extend(f"{at}: {p}" for p in map(_path_problem, dict.fromkeys(pair or ())) if p)
            state, path = "header", pair[0] if pair else ""
            if pair and path in seen:
                problems.append(f"{at}: the diff changes {_show(path)} twice")
            seen.add(path)
        elif state == "binary":
            continue  # the base85 lines of a binary patch, already refused
        elif line == "GIT binary patch" or (line.startswith("Binary files ") and line.endswith(" differ")):
            problems.append(f"{at}: {_show(path)} has binary content, which is not delivered")
            state = "binary"
        elif state == "header" and _FORGED.match(line):
            problems.append(f"{at}: a rename or copy header, which the healer (--no-renames) never writes")
        elif state == "header" and (mode := _MODE_LINE.fullmatch(line)):
            value = mode[1] if mode[1] is not None else mode[2]
            if value is not None and value not in ("100644", "100755"):
                kind = _MODE_KINDS.get(value, "not a regular file")
                problems.append(f"{at}: {_show(path)} has mode {_show(value)} ({kind}), not 100644 or 100755")
        elif (state, line[:4]) in {("header", "--- "), ("minus", "+++ ")}:
            state = "minus" if state == "header" else "body"
            if _side_path(line[4:], "a/" if state == "minus" else "b/") not in (None, path):
                problems.append(f"{at}: the {line[:3]} line names another path than the diff header")
        elif state == "body" and (hunk := _HUNK.fullmatch(line)):
            old, new = (int(count) if count is not None else 1 for count in hunk.groups())
        elif not (state == "body" and line.startswith("\\")):  # "\ No newline at end of file"
            problems.append(f"{at}: {_show(line[:60])} is not part of a git diff")
    if old > 0 or new > 0 or state == "minus":
        problems.append("the diff ends inside a file's change: it was cut short")
    return problems
