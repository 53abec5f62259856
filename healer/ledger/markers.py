"""Markers: the hidden records the healer writes at the top of its pull-request comments.

The marker format
-----------------
One marker is one line ``<!-- ci-healer:v1 {json} -->``. The JSON object is written with every character
that could end or confuse an HTML comment escaped as ``\\uXXXX``: ``<``, ``>``, ``&``, ``-`` and every
character that is not printable (controls, NUL, line and paragraph separators, bidi and zero-width marks,
lone surrogates). What is left is printable text without a single ``-``, so no check name, however hostile
(``-->``, ``--!>``, ``<!--``, newlines), can close the comment or start another one, and the marker stays on
its line. Printable non-ASCII (accents, CJK, emoji) is kept as it is: a maintainer reading the raw comment
can still read the check name.

Check names longer than :data:`MAX_CHECK_CHARS` characters are stored as a prefix plus a digest of the whole
name (:func:`check_key`); lookups apply the same function, so the budget key stays exact while the comment
stays small.

Only the *marker block* at the top of a comment is read: the leading lines that are markers (blank lines
allowed). The first other line ends the block. The healer quotes untrusted text (log excerpts, agent notes)
further down in its comments; a log line that imitates a marker is therefore never read as one.

Signed markers
--------------
Every workflow of a repository comments as ``github-actions[bot]``, so a comment by that login is not proof
that the healer wrote it: any workflow a person with write access can change may post one. With a
``ledger-key`` secret the healer signs each marker (:class:`Signer`): ``"sig"`` holds the HMAC-SHA256 of the
canonical record (the marker's fields in a fixed order, ASCII JSON) bound to the repository and the pull
request number, so a marker copied to another pull request or repository no longer verifies. A reader with a
key trusts only markers whose signature verifies; without a key, any ``sig`` is ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from healer.model import RunEvent

__all__ = [
    "MARKER_PREFIX",
    "MAX_CHECK_CHARS",
    "Kind",
    "Marker",
    "Signer",
    "add_markers",
    "check_key",
    "comment_body",
    "decode_markers",
    "encode_marker",
    "workflow_key",
]

MARKER_PREFIX = "ci-healer:v1"
MAX_CHECK_CHARS = 200
# A marker's JSON is small (a few hundred characters); a longer payload is not one of ours.
_MAX_PAYLOAD_CHARS = 16_384
# The payload cannot contain "<", ">" or "-" (they are escaped), which also keeps this regex linear.
_MARKER_LINE = re.compile(rf"<!-- ci-healer:v1 (\{{[^<>\-]{{0,{_MAX_PAYLOAD_CHARS}}}\}}) -->")
_SHA = re.compile(r"[0-9a-f]{4,64}")
_MAX_INT = 2**53  # what JSON readers elsewhere can hold exactly


class Kind(str, Enum):
    """What a marker records."""

    ATTEMPT = "attempt"  # a heal attempt (fix or agent) on a commit
    RERUN = "rerun"  # a re-run of the failed jobs; never spends heal attempts
    ESCALATION = "escalation"  # the one-time notice that the healer gives up on a check
    RESET = "reset"  # the check passed at the PR's head: its history starts again
    CLAIM = "claim"  # a run announces it is about to act on a commit
    DIAGNOSIS = "diagnosis"  # a diagnosis-only comment (fork PRs), once per (check, commit)
    FLAKY = "flaky"  # tests that failed and then passed on a re-run of the same commit
    STARTUP = "startup"  # a workflow could not start on a commit; ``check`` is its file, said once per commit
    # the base branch fails a check the same way: no attempt spent; ``run`` is the base branch's run,
    # ``result`` ``broken`` (the notice) or ``lifted`` (the base branch passed again)
    TRUNK = "trunk"
    # the CI of a fix PR (``fix_pr``) finished: ``result`` ``passed`` or ``failed``, ``run`` that CI's run,
    # ``sha`` and ``check`` those of the attempt that opened the fix PR; added to the attempt's comment
    PROOF = "proof"


@dataclass(frozen=True)
class Marker:
    """One record of the ledger. ``check`` is empty only for claims, which cover the whole commit."""

    kind: Kind
    sha: str
    check: str = ""
    attempt: int = 0
    run_id: int | None = None
    run_attempt: int | None = None
    category: str = ""
    mode: str = ""
    fix_pr: int | None = None
    result: str = ""
    tests: tuple[str, ...] = ()  # failing test ids (attempts, re-runs) or the flaky ones (flaky)
    by: str = ""  # who granted an attempt beyond the budget (``/ci-healer retry``)
    workflow: str = ""  # the workflow the check ran in (:func:`workflow_key`); "" in markers older than it
    tokens: int = 0  # model tokens the attempt's agent spent (the proxy's count); 0 in markers older than it
    learned: str = ""  # the signature of what a verified heal learned (:mod:`healer.ledger.learned`)
    stopped: str = ""  # the budget that stopped the attempt's agent (``agent-token-budget``…); "" if none did
    # the commit the healer pushed as its fix PR's head (an attempt); "" when it opened none, or in older
    # markers. Only a fix branch still at this commit is the healer's own work (:mod:`healer.run.proving`).
    pushed: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))
        object.__setattr__(self, "tests", _bounded_tests(self.tests))
        if not isinstance(self.by, str) or len(self.by) > 100:
            raise ValueError("marker by must be a login")
        if isinstance(self.sha, str):
            object.__setattr__(self, "sha", self.sha.lower())
        if not isinstance(self.sha, str) or not _SHA.fullmatch(self.sha):
            raise ValueError(f"marker sha must be 4 to 64 lowercase hex digits, not {self.sha!r}")
        if not isinstance(self.pushed, str) or not re.fullmatch(
            r"(?:[0-9a-f]{40}|[0-9a-f]{64})?", self.pushed
        ):
            raise ValueError("marker pushed must be a commit sha")
        if not isinstance(self.learned, str) or not re.fullmatch(r"(?:[0-9a-f]{12})?", self.learned):
            raise ValueError("marker learned must be a signature (12 hex digits)")
        for name in ("check", "category", "mode", "result", "workflow", "stopped"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"marker {name} must be text")
        if self.kind is not Kind.CLAIM and not self.check:
            raise ValueError(f"a {self.kind.value} marker needs a check name")
        object.__setattr__(self, "check", check_key(self.check))
        object.__setattr__(self, "workflow", check_key(self.workflow))
        for name in ("attempt", "run_id", "run_attempt", "fix_pr", "tokens"):
            value = getattr(self, name)
            optional = name not in ("attempt", "tokens")
            if value is None and optional:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_INT:
                raise ValueError(f"marker {name} must be a whole number from 0 to 2**53, not {value!r}")

    @property
    def run(self) -> tuple[int | None, int | None]:
        """The run identity (run id, run attempt) that wrote the marker."""
        return (self.run_id, self.run_attempt)


# Test ids kept in one marker: few and short, so that escaped they stay far below the payload limit.
MAX_MARKER_TESTS = 10
MAX_MARKER_TESTS_CHARS = 1500


def _bounded_tests(tests: object) -> tuple[str, ...]:
    if isinstance(tests, str) or not isinstance(tests, (list, tuple)):
        raise ValueError("marker tests must be a list of test ids")
    kept: list[str] = []
    total = 0
    for test in tests:
        if not isinstance(test, str):
            raise ValueError("marker tests must be text")
        if len(kept) == MAX_MARKER_TESTS or total + len(test) > MAX_MARKER_TESTS_CHARS:
            break
        kept.append(test)
        total += len(test)
    return tuple(kept)


def workflow_key(run: RunEvent) -> str:
    """The workflow a run belongs to, as markers record it: its file (``workflow_run.path``), which stays the
    same when the workflow is renamed, or its name when the payload gives no path."""
    return run.workflow_path or run.workflow_name


def check_key(name: str) -> str:
    """The budget key of a check name: the name itself, or a prefix plus a digest when it is very long."""
    if len(name) <= MAX_CHECK_CHARS:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{name[: MAX_CHECK_CHARS - 18]}…#{digest}"


# -- encoding -----------------------------------------------------------------------------------------------

_FIELDS = (  # (attribute, JSON key), in the order they are written
    ("kind", "kind"),
    ("check", "check"),
    ("sha", "sha"),
    ("attempt", "attempt"),
    ("run_id", "run"),
    ("run_attempt", "run_attempt"),
    ("category", "category"),
    ("mode", "mode"),
    ("fix_pr", "fix_pr"),
    ("result", "result"),
    ("tests", "tests"),
    ("by", "by"),
    # Last, and left out when empty like every field: a marker without a workflow keeps the canonical record
    # (and so the signature) it had before the field existed, while a signature over a new one covers it.
    ("workflow", "workflow"),
    ("tokens", "tokens"),  # after it, for the same reason
    ("learned", "learned"),  # after it, left out when empty, for the same reason
    ("stopped", "stopped"),  # and after that one
    ("pushed", "pushed"),  # and after that one
)
_NEEDS_LOOK = re.compile(r"[^\x20-\x7e]|[<>&\-]")


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable() and char not in "<>&-":
        return char
    code = ord(char)
    if code > 0xFFFF:  # JSON spells characters beyond the BMP as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def _record(marker: Marker) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for attr, key in _FIELDS:
        value = getattr(marker, attr)
        if isinstance(value, Kind):
            value = value.value
        if isinstance(value, tuple):
            value = list(value)
        if value is None or value in ("", []) or (attr in ("attempt", "tokens") and value == 0):
            continue
        record[key] = value
    return record


@dataclass(frozen=True)
class Signer:
    """Signs and verifies markers with the ``ledger-key`` secret, for one pull request of one repository."""

    key: bytes = field(repr=False)
    repository: str
    pull_number: int

    @classmethod
    def for_pull(cls, key: str, repository: str, pull_number: int) -> Signer | None:
        """The signer for a pull request; None when no key is configured (markers stay unsigned)."""
        return cls(key.encode("utf-8"), repository, pull_number) if key else None

    def signature(self, marker: Marker) -> str:
        """HMAC-SHA256 (hex) of the canonical record, bound to the repository and the pull request."""
        canonical = json.dumps(_record(marker), ensure_ascii=True, separators=(",", ":"))
        # Repository names are case-insensitive on GitHub; the number binds the marker to one pull request.
        message = f"{MARKER_PREFIX}\n{self.repository.casefold()}\n{self.pull_number}\n{canonical}"
        return hmac.new(self.key, message.encode("ascii"), hashlib.sha256).hexdigest()

    def verifies(self, marker: Marker, signature: object) -> bool:
        return isinstance(signature, str) and hmac.compare_digest(self.signature(marker), signature)


def encode_marker(marker: Marker, signer: Signer | None = None) -> str:
    """The marker as one line ``<!-- ci-healer:v1 {json} -->`` that no field value can break out of,
    signed when ``signer`` is given."""
    record = _record(marker)
    if signer is not None:
        record["sig"] = signer.signature(marker)
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    # Every unsafe character sits inside a JSON string (numbers are never negative), where \uXXXX is valid.
    return f"<!-- {MARKER_PREFIX} {_NEEDS_LOOK.sub(_escape_char, text)} -->"


def _marker_from_record(record: object) -> Marker | None:
    if not isinstance(record, dict):
        return None
    values: dict[str, Any] = {}
    for attr, key in _FIELDS:
        if key in record:
            values[attr] = record[key]
    try:
        return Marker(**values)
    except (TypeError, ValueError):
        return None


def _leading_lines(body: str) -> Iterable[str]:
    """The lines of the marker block: from the top, while they are blank or marker-shaped."""
    start = 0
    while start <= len(body):
        end = body.find("\n", start)
        if end < 0:
            end = len(body)
        line = body[start:end].strip()
        start = end + 1
        if not line:
            if end == len(body):
                return
            continue
        if not line.startswith(f"<!-- {MARKER_PREFIX} "):
            return
        yield line


def decode_markers(body: str, signer: Signer | None = None) -> list[Marker]:
    """The markers in a comment's marker block; anything malformed is skipped. Never raises.

    With ``signer``, only markers whose signature verifies for its repository and pull request are returned.
    """
    if not isinstance(body, str):
        return []
    markers: list[Marker] = []
    for line in _leading_lines(body):
        match = _MARKER_LINE.fullmatch(line)
        if not match:
            continue
        try:
            record = json.loads(match.group(1))
        except (ValueError, RecursionError):
            continue
        marker = _marker_from_record(record)
        if marker is None:
            continue
        if signer is not None and not signer.verifies(marker, record.get("sig")):
            continue
        markers.append(marker)
    return markers


def comment_body(markers: Sequence[Marker], text: str = "", signer: Signer | None = None) -> str:
    """One comment body: the marker block (several checks' markers) on top, then the visible text."""
    block = "\n".join(encode_marker(marker, signer) for marker in markers)
    if not text:
        return block
    return f"{block}\n\n{text}" if block else text


def add_markers(body: str, markers: Sequence[Marker], note: str = "", signer: Signer | None = None) -> str:
    """``body`` with ``markers`` added to its marker block (and ``note`` to its text), to edit a comment.

    Used to record a reset in the previous healer comment (a reset adds no comment when there is one to edit).
    The block's existing lines are kept as they are, never re-encoded: re-signing them would vouch for a
    marker that someone else put there.
    """
    lines = body.split("\n")
    first_text = len(lines)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped and not stripped.startswith(f"<!-- {MARKER_PREFIX} "):
            first_text = index
            break
    kept = [line.strip() for line in lines[:first_text] if line.strip()]
    text = "\n".join(lines[first_text:]).strip("\n")
    if note:
        text = f"{text}\n\n{note}" if text else note
    block = "\n".join([*kept, *(encode_marker(marker, signer) for marker in markers)])
    if not text:
        return block
    return f"{block}\n\n{text}" if block else text
