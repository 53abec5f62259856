"""What a verified heal learned: the failure's signature, and the rule that would fix it next time.

A failure's **signature** is its decisive lines with what changes from one occurrence to the next masked:
quoted names, hashes, paths and numbers. Two failures of the same kind (the generated client drifted again,
on another PR, in another file) have the same masked lines, so the same signature: a short hash of the
category and those lines.

The **lesson** (:class:`healer.model.Lesson`) travels in the attempt's memory line (:mod:`.memory`) and its
hash in the attempt's marker (:mod:`.markers`); when a person merges the fix, the healer proposes the rule
that :func:`rule_mapping` builds from it. Its ``match`` expressions are the masked lines, anchored and with
each masked part replaced by a narrow class, so that the rule matches this failure and little else; a line
left with too few literal words after masking is not used at all (it would match anything).

Everything here is pure: no I/O, only text in and values out. The lines come from a job log and the summary
from the agent: untrusted text, which this module only bounds and masks (never runs or interprets).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from healer.ledger.markers import check_key
from healer.model import Diagnosis, Lesson
from healer.text.frames import without_runner_markup
from healer.text.oneline import MAX_COMMAND_CHARS, one_line_command

# What a lesson keeps: a few lines, a short summary, a bounded list of files.
MAX_LINES, MAX_LINE_CHARS = 3, 300
MAX_SUMMARY_CHARS, MAX_FILES, MAX_FILE_CHARS = 600, 20, 200
MAX_HINT_CHARS = 1800  # below the rule schema's 2000
# A masked line must keep this much of its own text to say what the failure is.
MIN_LITERAL_CHARS, MIN_LITERAL_WORDS = 12, 2

# The parts of a line that differ between occurrences, in the order they are tried at each position.
_TOKEN = re.compile(
    r"""(?P<q>'[^'\n]{0,200}'|"[^"\n]{0,200}"|`[^`\n]{0,200}`)"""
    r"|(?P<hash>(?<![\w])[0-9a-f]{7,64}(?![\w]))"
    r"|(?P<path>(?<![\w/.-])(?:[\w.-]*/)+[\w.-]*\w|(?<![\w/.-])[\w-]+(?:\.[\w-]+)*\.[A-Za-z][\w]{0,7}(?![\w/]))"
    r"|(?P<n>(?<![\w.])\d+(?:\.\d+)*)"
)
_MASK = {"q": "<quoted>", "hash": "<hash>", "path": "<path>", "n": "<n>"}
_CLASS = {
    "hash": "[0-9a-f]{7,64}",
    "path": r"[\w./-]+",
    "n": r"\d+(?:\.\d+)*",
}
_QUOTE_CLASS = {"'": "'[^']*'", '"': '"[^"]*"', "`": "`[^`]*`"}
_RUNNER = re.compile(r"^(?:##\[|shell: |Run )")
_WORD = re.compile(r"[A-Za-z]{3,}")
_CLIPPED = "…"


def _parts(line: str) -> list[tuple[str, str]]:
    """``line`` as (kind, text) parts: ``""`` for literal text, else a key of :data:`_MASK`."""
    parts: list[tuple[str, str]] = []
    at = 0
    for found in _TOKEN.finditer(line):
        if found.start() > at:
            parts.append(("", line[at : found.start()]))
        parts.append((found.lastgroup or "", found.group()))
        at = found.end()
    if at < len(line):
        parts.append(("", line[at:]))
    return parts


def mask(line: str) -> str:
    """``line`` with quoted names, hashes, paths and numbers masked (``<quoted>``, ``<hash>``, ``<path>``,
    ``<n>``)."""
    return "".join(_MASK[kind] if kind else text for kind, text in _parts(line))


_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


def _escape(text: str) -> str:
    # only what is special outside a character class (re.escape also escapes spaces, `#`, `-`, …, which
    # only makes the rule harder to read in its YAML)
    return _SPECIAL.sub(r"\\\1", text)


def pattern(line: str) -> str:
    """An anchored expression that matches ``line`` and the lines that differ from it only in what
    :func:`mask` masks. A line the excerpt clipped (it ends in ``…``) is matched on its start only."""
    clipped = line.endswith(_CLIPPED)
    body = line[: -len(_CLIPPED)] if clipped else line
    out = []
    for kind, text in _parts(body):
        if not kind:
            out.append(_escape(text))
        elif kind == "q":
            out.append(_QUOTE_CLASS[text[0]])
        else:
            out.append(_CLASS[kind])
    return "^" + "".join(out) + ("" if clipped else "$")


def specific(line: str) -> bool:
    """Whether ``line``, masked, still says enough of its own to tell one failure from another."""
    literal = "".join(text for kind, text in _parts(line) if not kind)
    letters = sum(ch.isalnum() for ch in literal)
    return letters >= MIN_LITERAL_CHARS and len(_WORD.findall(literal)) >= MIN_LITERAL_WORDS


def evidence(diagnosis: Diagnosis) -> tuple[str, ...]:
    """The lines a signature is made of: the decisive lines, or, when no rule found any (an unknown
    failure), the last lines of the failing step's output that are not the runner's own; only the specific
    ones, at most :data:`MAX_LINES`, each cut to :data:`MAX_LINE_CHARS`."""
    lines = list(diagnosis.decisive)
    if not lines:
        body = [ln for ln in without_runner_markup(diagnosis.excerpt) if ln.strip() and not _RUNNER.match(ln)]
        lines = body[-MAX_LINES:]
    chosen: list[str] = []
    for line in lines:
        cut = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + _CLIPPED
        if specific(cut) and cut not in chosen:
            chosen.append(cut)
        if len(chosen) == MAX_LINES:
            break
    return tuple(chosen)


def signature(category: str, lines: Sequence[str]) -> str:
    """A short hash of the category and the masked lines: the same for every occurrence of the failure."""
    text = "\n".join([category, *(mask(line) for line in lines)])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def lesson_of(
    diagnosis: Diagnosis,
    check: str,
    *,
    fix_command: str = "",
    files: Sequence[str] = (),
    summary: str = "",
) -> Lesson | None:
    """What a verified heal of ``check`` learned; None when its log gives no specific line to know the
    failure by. ``files`` are git's ``M\\tpath`` lines; ``summary`` is the agent's note (untrusted)."""
    lines = evidence(diagnosis)
    if not lines:
        return None
    category = diagnosis.category.value
    names = [entry.split("\t")[-1][:MAX_FILE_CHARS] for entry in files[:MAX_FILES]]
    note = " ".join(summary.split())
    return Lesson(
        signature=signature(category, lines),
        category=category,
        check=check_key(check),  # as markers key it
        command=(diagnosis.command or "")[:MAX_COMMAND_CHARS],
        masked=tuple(mask(line) for line in lines),
        decisive=lines,
        fix_command=one_line_command(fix_command),
        files=tuple(names),
        summary=note[:MAX_SUMMARY_CHARS] + (_CLIPPED if len(note) > MAX_SUMMARY_CHARS else ""),
    )


def lesson_from(record: object) -> Lesson | None:
    """A lesson read back from a memory record (untrusted JSON); None when it is not one. Never raises."""
    if not isinstance(record, Mapping):
        return None

    def text(key: str, limit: int) -> str:
        value = record.get(key)
        return value[:limit] if isinstance(value, str) else ""

    def lines(key: str, count: int, limit: int) -> tuple[str, ...]:
        value = record.get(key)
        if not isinstance(value, list):
            return ()
        return tuple(item[:limit] for item in value[:count] if isinstance(item, str))

    sig = text("signature", 64)
    if not re.fullmatch(r"[0-9a-f]{12}", sig):
        return None
    return Lesson(
        signature=sig,
        category=text("category", 40),
        check=text("check", MAX_LINE_CHARS),
        command=text("command", MAX_COMMAND_CHARS),
        masked=lines("masked", MAX_LINES, MAX_LINE_CHARS + 200),
        decisive=lines("decisive", MAX_LINES, MAX_LINE_CHARS + 1),
        fix_command=one_line_command(text("fix_command", MAX_COMMAND_CHARS + 1)),
        files=lines("files", MAX_FILES, MAX_FILE_CHARS),
        summary=text("summary", MAX_SUMMARY_CHARS + 1),
    )


def rule_id(lesson: Lesson) -> str:
    return f"learned.{lesson.signature}"


def rule_branch(lesson: Lesson) -> str:
    """``ci-healer/rule-<hash>``: one branch, so one pull request, per signature."""
    return f"ci-healer/rule-{lesson.signature}"


def hint_of(lesson: Lesson, *, pr: int, fix_pr: int, commit: str) -> str:
    """What fixed the failure last time, and where: the next frame shows it (fenced, as untrusted text)."""
    where = f"fix pull request #{fix_pr} for #{pr}, commit {commit[:7]}" if commit else f"#{fix_pr}"
    files = ", ".join(lesson.files) or "no file the healer could name"
    text = f"Last time ({where}) this failure was fixed by changing {files}."
    if lesson.summary:
        text += f" The agent's note then: {lesson.summary}"
    return text[:MAX_HINT_CHARS]


def description(lesson: Lesson, *, pr: int, fix_pr: int) -> str:
    """The rule's description: the diagnosis its fix pull requests and escalations give, one plain sentence
    of healer-written text (no Markdown, nothing from the log or the agent)."""
    kind = lesson.category if lesson.category and lesson.category != "unknown" else ""
    article = "An" if kind[:1] in ("a", "e", "i", "o", "u") else "A"
    seen = f"{article} {kind} failure" if kind else "A failure"
    does = (
        "the rule runs the command that reproduced that fix"
        if lesson.fix_command
        else "the agent is told what that fix changed"
    )
    return f"{seen} like the one #{fix_pr} fixed on #{pr}; {does}."


def rule_mapping(lesson: Lesson, *, pr: int, fix_pr: int, commit: str = "") -> dict[str, Any]:
    """The rule the lesson teaches, as it goes into ``learned.yml``: ``fix`` with the command that
    reproduced the change, else ``agent`` with a ``hint``."""
    rule: dict[str, Any] = {
        "id": rule_id(lesson),
        "category": lesson.category,
        "confidence": 0.9,
        # healer-written only: descriptions reach frames and PR bodies unfenced (the log's lines are in match)
        "description": description(lesson, pr=pr, fix_pr=fix_pr),
        "match": [pattern(line) for line in lesson.decisive],
    }
    if lesson.fix_command:
        rule.update(action="fix", fix=[lesson.fix_command])
    else:
        rule.update(action="agent", hint=hint_of(lesson, pr=pr, fix_pr=fix_pr, commit=commit))
    return rule
