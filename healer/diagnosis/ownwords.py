"""What the repository's own scripts say of a failure, in the failing step's output.

Projects that fight flaky tests or a red base branch often make their CI say so: a script that runs the
failing tests again on the base branch and reports that they fail there too, a list of known flaky tests
(``flaky-tests.txt``, a quarantine list) that a note in the output names, a retry helper that reports a test
that failed on one attempt and passed on another. Such a line is the repository's word on whose failure it
is, written by people who know the suite; the healer takes it as it takes a ``flaky-tests:`` entry:

- **the base branch fails the same way** (``the base branch fails too``, ``the same tests fail on main``,
  ``main is broken``, ``present on the base branch``): the failure is upstream's, a broken base branch that
  the pull request cannot fix (DESIGN, "the broken-trunk check"). Escalated, never sent to the agent;
- **the failing tests are known to be flaky** (``known flaky``, ``quarantined``, ``listed in
  .github/flaky-tests.txt``, a ``[Flaky]`` tag or a CTest label ``flaky`` beside a failed test, ``failed on
  attempt 1 and passed on attempt 2``, another run of the same commit that passed): the tests' history,
  re-run once like a test of the ``flaky-tests:`` list.

Only a test, build or lint failure the table gave to the code is re-read, and only from the step's output:
the step's script (its ``##[group]Run`` echo) is what the repository ran, not what it found.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reassigned
from healer.model import Action, Category, Diagnosis, Owner

# the base branch's name as such a script writes it, ended as a sentence's word (`main is broken`, not `main
# thread`)
_BRANCH = r"(?:the )?(?:origin/|upstream/)?(?:base branch|default branch|main|master|trunk|develop)"
_END = r"(?=\s*(?:[:;,.)!]|$|too\b|as well\b|also\b|@|at\b|with\b|\())"
_BASE_FAILS = re.compile(
    rf"\bbase branch (?:also )?(?:fails|failed|is (?:also )?(?:broken|failing|red))\b"
    rf"|\bfail(?:s|ed)? (?:the same way |too |also |as well )?on {_BRANCH}{_END}"
    rf"|\b(?:present|reproduces|also happens|happens too) on {_BRANCH}{_END}"
    rf"|\b(?:main|master|trunk|the base branch) is (?:also )?(?:broken|failing|red){_END}"
    rf"|\bsame (?:tests?|checks?|failures?|errors?) (?:also )?fails? on {_BRANCH}{_END}"
    rf"|(?:^|[\s:(]){_BRANCH} (?:also )?fails (?:the same way|the same (?:tests?|checks?)|too|as well"
    r"|with the same (?:errors?|failures?))\b"
    # a notice naming the base branch's commit: "main@3f9e1a2 (scheduled run #881) fails … the same way"
    r"|(?:^|[\s:(])(?:origin/)?(?:main|master|trunk|develop)@[0-9a-f]{6,40}\b.{0,100}\bfail(?:s|ed)\b.{0,150}"
    r"\bthe same way\b",
    re.IGNORECASE,
)
_FLAKY_WORDS = re.compile(
    r"\bknown[- ](?:to be )?(?:flaky|intermittent|flake)\b"
    r"|\(quarantined\b|\bquarantined (?:in|as|on|test|spec|until)\b|\[quarantined?\]"
    r"|\bflaky[-_]?(?:tests?|specs?|list)?\.(?:txt|json|ya?ml|md|toml)\b"
    r"|\b(?:on|in) the (?:known[- ])?flaky(?:[- ]tests?)? list\b"
    r"|\b(?:tracked|marked|listed|labell?ed) as (?:a )?(?:flaky|intermittent)\b"
    r"|\((?:flaky|intermittent)\b[:;,)]|\[Flaky\]"
    # a tag with the tracking issue: "FLAKY(#214): …", "flaky (#88)"
    r"|\bflaky ?\(#\d+\)"
    # CTest's list of failed tests, each with the labels the project gave it (`set_tests_properties(… LABELS
    # flaky)`): "7 - udp_loopback (Failed)    flaky"
    r"|^\d+ - \S+ \([\w ]+\)(?:\s+[\w.-]+)*?\s+flaky\b"
    r"|\bfailed (?:on (?:attempt|try|run) \d+ )?(?:and|then|,) (?:then )?passed on "
    r"(?:a |the )?(?:re-?run|retry|attempt \d+|try \d+|run \d+|second attempt)\b"
    # another run of the same commit passed: "restarted build 2 of this commit passed", "passed on a previous
    # run of this commit", "previous run of this commit (attempt 1): … passed"
    r"|\b(?:runs?|builds?|attempts?|jobs?) (?:\d+ |\(attempt \d+\) )?of (?:this|the same) (?:commit|sha)\b"
    r".{0,80}\bpass(?:ed|es)\b"
    r"|\bpass(?:ed|es) (?:on|in) (?:a |an |the )?(?:previous|earlier|other|another|first|\d+(?:st|nd|rd|th)) "
    r"(?:runs?|builds?|attempts?) of (?:this|the same) (?:commit|sha)\b",
    re.IGNORECASE,
)
# a line of the step's script as the runner echoes it
_ECHO = "\x1b[36;1m"
_READ = frozenset({Category.TEST, Category.BUILD, Category.LINT, Category.TYPECHECK})


def as_the_repository_says(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when the step's output says the base branch fails the same way, or to
    the tests' history when it says a failing test is known to be flaky; otherwise unchanged."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category not in _READ:
        return diagnosis
    base = flaky = None
    for raw in step_lines:
        lowered = raw.lower()
        if _ECHO in raw or not any(word in lowered for word in _CHEAP):
            continue
        line = clean_line(raw).strip()
        if line.startswith("##[group]"):
            continue
        base = base or (line if _BASE_FAILS.search(line) else None)
        flaky = flaky or (line if _FLAKY_WORDS.search(line) else None)
    if base:
        owner, action, said = Owner.UPSTREAM, Action.ESCALATE, f"the base branch fails the same way: {base}"
    elif flaky and diagnosis.category is Category.TEST:
        owner, action, said = (
            Owner.HISTORY,
            Action.RERUN,
            f"the failing tests are flaky (known, or passed): {flaky}",
        )
    else:
        return diagnosis
    return reassigned(diagnosis, owner, f"the step says {said[:200]}", action.value, action=action)


# words one of the patterns needs, to skip most lines without a regular expression
_CHEAP = ("ase", "ain", "aster", "runk", "evelop", "lak", "ntermittent", "uarantine", "pass", "commit")
