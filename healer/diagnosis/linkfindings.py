"""A link checker's findings, each read on its own: a busy or slow server is the platform's, a broken link the
document's.

A link checker lists every link it could not confirm, with the answer it got. A server that answered
``429 Too Many Requests`` or a 5xx error, or that did not answer in time, is busy or down for now (RFC 9110,
15.6; RFC 6585, 4): the link is fine and a later run finds it. Any other finding (404, a host that does not
resolve, a file the document links to that is not there) is about the document: the pull request's. So only a
step whose *every* finding is a busy server is re-run; one broken link keeps it the code's, whatever else the
step's output says. A step whose findings cannot all be read, or whose own count says there were more
findings than the lines read, is left as it was.

Each checker's lines, as its README shows them:

- lychee: ``✗ [404] https://… | Failed: Network error: Not Found``, ``[TIMEOUT] https://… | Timeout``, then
  ``🔍 214 Total … 🚫 2 Errors ⏳ 1 Timeouts``; its verbose lines for links it confirmed (``[200]
  https://…``) or only warned about (``[WARN]``) are not findings;
- linkinator: ``[404] https://…``, then ``ERROR: Detected N broken links.``;
- markdown-link-check: ``[✖] https://… → Status: 0 Error: ETIMEDOUT``, then ``ERROR: N dead links found!``;
- html-proofer: ``External link https://… failed (status code 404)``, ``… failed: got a time out (response
  code 0)``, then ``HTML-Proofer found N failures!``;
- Sphinx's ``linkcheck`` builder: ``(index: line   12) broken    https://… - 404 Client Error: Not Found for
  url: …``, ``(guide: line 40) timeout   https://… - HTTPSConnectionPool(…): Read timed out.``, and
  ``rate-limited`` for a server that kept answering 429; its ``ok``, ``redirect`` and ``ignored`` lines are
  not findings.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

# a finding and the answer it got (`status`) or the words after it (`rest`), per checker
_FINDINGS = (
    re.compile(r"^\s*(?:[✗✖*]\s+)?\[(?P<status>\d{3}|[A-Z]{3,12})\]\s+\S+\s+\|\s*(?P<rest>.*)$"),  # lychee
    re.compile(r"^\s*\[(?P<status>\d{1,3})\]\s+https?://\S+\s*$"),  # linkinator
    re.compile(r"^\s*\[✖\]\s+\S+\s+→\s+Status:\s*(?P<status>\d+)(?P<rest>.*)$"),  # markdown-link-check
    re.compile(r"^\s*External link \S+ failed(?P<rest>.*)$"),  # html-proofer
    # Sphinx's linkcheck builder: the document and line, the status, the link, then " - " and its message
    re.compile(
        r"^\s*\([^)]{0,300}?line\s+\d+\)\s+(?P<status>[a-z][a-z-]{1,15})\s+https?://\S+?(?:\s+-\s+|\s*$)"
        r"(?P<rest>.*)$"
    ),
)
# the checkers' own count of their findings
_COUNT = re.compile(
    r"ERROR: Detected (\d+) broken links?\b|ERROR: (\d+) dead links? found\b"
    r"|HTML-Proofer found (\d+) failures?\b"
)
# what a checker's verbose output says of a link that is not a finding: an answer that is not an error, and
# lychee's own words for a link it did not check or only warned about
_NOT_A_FINDING = re.compile(
    r"^(?:[123]\d\d|WARN|EXCLUDED|SKIPPED|UNSUPPORTED|CACHED|ok|redirect|ignored|unchecked|working)$"
)
# lychee's summary: its errors, and its timeouts counted apart ("🚫 0 Errors ⏳ 2 Timeouts")
_LYCHEE_COUNT = re.compile(r"🚫 (?P<errors>\d+) Errors?\b(?:.*?⏳ (?P<timeouts>\d+) Timeouts?\b)?")
# a busy or failing server (RFC 9110, 15.6; RFC 6585, 4; Cloudflare's 520-524: an origin that did not answer)
_BUSY_STATUS = re.compile(r"^(?:429|50[0234]|52[0-4])$")
# a request that was not answered in time or was cut off: lychee's TIMEOUT, Node's socket codes in
# markdown-link-check's "Status: 0 Error: …", html-proofer's "got a time out"; 429's reason phrase (RFC 6585),
# as lychee quotes a rate limit ("Network error: Too Many Requests")
_SLOW = re.compile(
    r"\b(?:ETIMEDOUT|ESOCKETTIMEDOUT|ECONNRESET|EAI_AGAIN)\b|got a time out"
    r"|\bstatus code (?:429|50[0234])\b|\bToo Many Requests\b"
    # the HTTP client under lychee (reqwest over hyper) when the server went quiet or hung up: "operation
    # timed out", hyper's "connection closed before message completed"
    r"|\boperation timed out\b|\bconnection closed before message completed\b"
    # Python's requests under Sphinx's linkcheck: urllib3's words for a server that did not answer in time
    r"|\bRead timed out\b|\bConnectTimeoutError\b|\bConnection to \S+ timed out\b"
    r"|^:? ?(?:429|50[0234])\b"
)


def link_findings(lines: Sequence[str]) -> str | None:
    """``"busy"`` when every finding of the link checker is a busy or slow server, ``"broken"`` when one is
    not, None when no finding was read or the checker counted more than were read."""
    found: dict[str, bool] = {}
    counted: int | None = None
    for line in lines:
        count = _COUNT.search(line)
        if count:
            counted = int(next(group for group in count.groups() if group))
            continue
        if "🚫" in line and (summary := _LYCHEE_COUNT.search(line)):
            counted = int(summary["errors"]) + int(summary["timeouts"] or 0)
            continue
        for pattern in _FINDINGS:
            match = pattern.match(line)
            if match and _NOT_A_FINDING.match(match.groupdict().get("status") or ""):
                break  # a link the checker confirmed, skipped or only warned about (lychee's verbose lines)
            if match:
                found[line.strip()] = _busy(match)
                break
    if not found or (counted is not None and counted != len(found)):
        return None
    return "busy" if all(found.values()) else "broken"


def _busy(match: re.Match[str]) -> bool:
    parts = match.groupdict()
    status, rest = parts.get("status") or "", (parts.get("rest") or "").strip()
    if status in ("TIMEOUT", "timeout", "rate-limited") or _BUSY_STATUS.match(status):
        return True
    # no status: an answer that never came (lychee's `[ERROR]`, a socket code, Sphinx's "broken" with the
    # client's error), read by its words
    return status in ("", "0", "ERROR", "broken") and bool(_SLOW.search(rest))


def checked_links(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """A link checker's step whose every finding is a busy server is the platform's (re-run); one broken link
    makes it the document's, the code's. Any other step, or findings that cannot all be read, stay as they
    are."""
    if diagnosis.purpose != "link-check" or diagnosis.owner not in (Owner.CODE, Owner.PLATFORM):
        return diagnosis
    verdict = link_findings(step_lines)
    if verdict == "busy" and diagnosis.owner is Owner.CODE:
        owner, kind, action, said = Owner.PLATFORM, Category.TRANSIENT, Action.RERUN, "a busy or slow server"
    elif (
        verdict == "broken" and diagnosis.owner is Owner.PLATFORM and diagnosis.category is Category.TRANSIENT
    ):
        owner, kind, action, said = Owner.CODE, Category.LINT, Action.AGENT, "a broken link among them"
    else:
        return diagnosis
    return reread(diagnosis, owner, kind, action, f"the link checker's findings: {said}")
