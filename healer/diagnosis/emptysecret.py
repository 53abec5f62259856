"""A step the runner ran with a secret's variable or input empty: the repository's secrets, not the code.

The runner writes each step's header into the log before its output: ``##[group]Run …``, the script or
the action's ``with:`` inputs, then ``env:`` with one ``  NAME: value`` line per variable, a secret's value
masked as ``***``. GitHub passes no secrets but ``GITHUB_TOKEN`` to a workflow run for a pull request from a
fork, nor Actions secrets to a run Dependabot triggered, and a secret that is not set expands to an empty
string (GitHub Docs, "Using secrets in GitHub Actions"). So a header line ``  SONAR_TOKEN:`` with nothing
after it says the step ran without that secret; so does one whose name reads as no secret
(``PAYGATE_SANDBOX_KEY``, ``DATABASE_URL``) when the step's output itself says that variable is empty or
not set.

The runner also names where the job's secrets came from at the start of its log: ``Secret source: Actions``,
``Secret source: Dependabot``, or ``Secret source: None`` for a run given no secrets at all (a fork's pull
request). Travis CI says the same before the job's commands: "Encrypted environment variables have been
removed for security reasons.", then its page "pull-requests-and-security-restrictions" (its documentation,
"Pull Requests and Security Restrictions"). With none, a variable named for a secret that the step's output
says is not set (``PAYWIRE_KEY is not set``, ``SAUCE_ACCESS_KEY must be set``) is the same missing secret.

Where nothing says the job lacked its secrets, the step's own words naming a secret-named variable not set
(``SAUCE_ACCESS_KEY must be set``, ``API_TOKEN is not set``) still say it ran without one, when no cause line
says anything else (the failure was read from a summary, or not at all): a maintainer sets the secret or maps
it into the step. That alone is not whose failure it is: a compiler's error or a failed assertion in the same
step is the code's whatever its environment lacked. It decides only where the step's own words point the
same way: a refused or missing credential in its output, or no cause line at all (the tool's summary, Maven's
"Failed to execute goal", the exit code). Then the failure is the repository's: a maintainer sets the secret,
or makes the step skip pull requests that cannot have it.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line, setup_section
from healer.diagnosis.owner import reread
from healer.diagnosis.testcauses import CREDENTIAL, pytest_summary_causes
from healer.model import Action, Category, Diagnosis, Owner

# a header's input or variable shown with nothing after it
_EMPTY = re.compile(r"^  (?P<name>[A-Za-z_][\w-]{0,100}):$")
# names that hold a secret: tokens, keys, passwords, credentials
_SECRET_NAME = re.compile(
    r"(?i)token|secret|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth"
    # a signing certificate and its password, as workflows name them (GitHub Docs, "Installing an Apple
    # certificate on macOS runners": `BUILD_CERTIFICATE_BASE64`, `P12_PASSWORD`; also `MACOS_CERT_PWD`)
    r"|(?:^|_)(?:cert(?:ificate)?|p12|pfx|pwd|signing[_-]?key|keystore)(?:_|$)"
)
_SECRET_SOURCE = re.compile(r"^Secret source: (?P<source>\w{1,40})$")
# Travis CI's two lines for a pull request's build without the repository's encrypted variables
_TRAVIS_REMOVED = "Encrypted environment variables have been removed for security reasons."
_TRAVIS_SEE = "See https://docs.travis-ci.com/user/pull-requests/#pull-requests-and-security-restrictions"
_TRAVIS_LINES = 400
# a secret-named variable the output says is not there (beside testcauses' CREDENTIAL, which needs the
# names' usual endings: with no secrets at all, any *_KEY is one)
_UNSET = re.compile(
    r"\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)\b.{0,40}"
    r"\b(?:(?:is|was|are) (?:empty|not set|unset|missing|not defined|undefined|required)|must be set)\b"
    # the same said first ("Missing SAUCE_USERNAME or SAUCE_ACCESS_KEY; cannot start a Sauce Connect tunnel")
    r"|\b(?:Missing|No)\b.{0,60}\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)\b"
    # and the names to set after a statement that the credentials are missing ("Sauce Labs credentials are
    # missing. Set SAUCE_USERNAME and SAUCE_ACCESS_KEY.")
    r"|\b(?:[Cc]redentials?|[Tt]okens?|[Kk]eys?) (?:is|are) (?:missing|not set)\b.{0,10}"
    r"\b(?:[Ss]et|[Pp]rovide|[Ee]xport)\b.{0,60}\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)\b"
)
# a line a tool logs at an informational level ("INFO …", "[notice] …", "Warning: …"): not its failure
_INFORMATIONAL = re.compile(r"(?i)^\[?(?:info|debug|notice|note|warn(?:ing)?)\b\]?:?")
# any variable the output says is not there: it counts only for one the header shows empty
# (``DATABASE_URL: `` there, "Error: DATABASE_URL is not set" in the output)
_UNSET_ANY = re.compile(
    r"\b[A-Z][A-Z0-9_]{2,}\b.{0,40}\b(?:(?:is|was|are) (?:empty|not set|unset|missing|not defined|undefined)"
    r"|must be set)\b"
)
# Python's KeyError for a variable the process's environment does not have: os.environ's __getitem__ raises
# it (its frame, "<frozen os>:714: in __getitem__" or ".../os.py:680: in __getitem__", in pytest's traceback),
# or the line before it reads os.environ["NAME"]; a secret-named variable missing there was not given to the
# step (a secret not set, withheld from a fork's or Dependabot's run, or not passed in `env:`)
_KEY_ERROR = re.compile(r"^(?:E\s+)?KeyError: '(?P<name>[A-Z][A-Z0-9_]{1,100})'$")
_OS_GETITEM = re.compile(r"(?:<frozen os>|[\\/]os\.py)(?::\d+)?:? in __getitem__$")
_ENVIRON_READ = re.compile(r"""\bos\.environ\[\s*(["'])(?P<name>[A-Z][A-Z0-9_]{1,100})\1\s*\]""")
_TRACE_WINDOW = 12
# the set-up section is the log's first lines; a step's output may print anything
_SETUP_LINES = 80
# rules that read a summary or a name, not a cause line: they do not say the code failed
_SUMMARIES = ("fallback.", "derived.", "none", "jvm.maven-goal-failed", "jvm.gradle-task-failed")
# kinds whose report is the code's own, whatever the step's environment lacked
_CODE_REPORTS = frozenset({Category.BUILD, Category.LINT, Category.FORMAT, Category.TYPECHECK})


def empty_secrets(header: Sequence[str], unset: Sequence[str] = ()) -> tuple[str, ...]:
    """The secret-named inputs and variables a step's header shows empty, in order; and any other that one of
    ``unset`` (the step's own words that a variable is empty or not set, :func:`unset_in`) names
    (``PAYGATE_SANDBOX_KEY is empty``)."""
    names = []
    for line in header:
        found = _EMPTY.match(line.rstrip())
        if found and (_SECRET_NAME.search(found.group("name")) or _names(found.group("name"), unset)):
            names.append(found.group("name"))
    return tuple(dict.fromkeys(names))


def unset_in(step_lines: Sequence[str], *, any_name: bool = False) -> list[str]:
    """The step's own words that a secret-named variable (``any_name``: any variable) is empty or not set
    (``PAYWIRE_KEY is not set``, ``DATABASE_URL is not set``)."""
    pattern = _UNSET_ANY if any_name else _UNSET
    return [found.group(0) for line in step_lines if (found := pattern.search(line))]


def environ_missing(step_lines: Sequence[str]) -> tuple[str, ...]:
    """The secret-named variables (a ``*_KEY`` among them, not the workflow's own ``GITHUB_TOKEN``) the step's
    Python read from ``os.environ`` and did not find, when they are all its failure says: every test pytest's
    summary lists failed on one of them, or there is no summary (a conftest that failed to import); ()
    otherwise."""
    if not any("KeyError: '" in raw for raw in step_lines):
        return ()
    names: list[str] = []
    recent: list[str] = []
    for raw in step_lines:
        line = clean_line(raw).strip()
        if found := _KEY_ERROR.match(line):
            name = found.group("name")
            read = any(
                _OS_GETITEM.search(seen) or any(m.group("name") == name for m in _ENVIRON_READ.finditer(seen))
                for seen in recent
            )
            # the workflow's own GITHUB_TOKEN is no secret withheld: every job has it, and a step's
            # environment holds it only where the workflow hands it over, as for any variable
            if read and (_SECRET_NAME.search(name) or name.endswith("_KEY")) and name != "GITHUB_TOKEN":
                names.append(name)
        recent = [*recent[-(_TRACE_WINDOW - 1) :], line]
    missing = tuple(dict.fromkeys(names))
    causes = pytest_summary_causes(step_lines)
    if not missing or any(not any(f"KeyError: '{n}'" in cause for n in missing) for cause in causes):
        return ()
    return missing


def _stated_unset(step_lines: Sequence[str]) -> list[str]:
    """:func:`unset_in`, but only where the step states it as a failure: not a line logged at an
    informational level (``INFO GITHUB_TOKEN is not set, license-eye won't comment``), and not the
    workflow's own ``GITHUB_TOKEN``, which every job has and a tool merely was not handed."""
    stated = []
    for raw in step_lines:
        line = clean_line(raw).strip()
        found = _UNSET.search(line)
        if found and not _INFORMATIONAL.match(line) and "GITHUB_TOKEN" not in found.group(0):
            stated.append(found.group(0))
    return stated


def _names(name: str, unset: Sequence[str]) -> bool:
    return any(name in said for said in unset)


def secret_source(log_lines: Sequence[str]) -> str | None:
    """Where the runner's set-up section says the job's secrets came from: ``Actions``, ``Dependabot``, or
    ``None`` for a job given none; None when the set-up section is not in view."""
    for line in setup_section(log_lines, limit=_SETUP_LINES):
        if found := _SECRET_SOURCE.match(line.strip()):
            return found.group("source")
    return None


def _travis_gave_none(log_lines: Sequence[str]) -> bool:
    """Whether Travis CI said, near the log's start, that it removed the repository's encrypted variables."""
    head = [clean_line(raw).strip() for raw in log_lines[:_TRAVIS_LINES]]
    return any(
        line == _TRAVIS_REMOVED and after == _TRAVIS_SEE for line, after in zip(head, head[1:], strict=False)
    )


def without_its_secrets(
    diagnosis: Diagnosis, header: Sequence[str], step_lines: Sequence[str], log_lines: Sequence[str] = ()
) -> Diagnosis:
    """``diagnosis`` given to the repository when the step ran with a secret empty (or the job with none)
    and its output refused a credential or named no cause; otherwise unchanged."""
    summary = diagnosis.rule.startswith(_SUMMARIES)
    if diagnosis.owner not in (Owner.CODE, Owner.UNKNOWN) or diagnosis.category in (
        Category.CANCELLED,
        Category.TIMEOUT,
    ):
        return diagnosis
    if diagnosis.category in _CODE_REPORTS and not summary:
        return diagnosis  # a compiler's or a linter's own report
    if any(stage in ("ending", "history") for stage, _ in diagnosis.decided_by):
        return diagnosis
    if missing := environ_missing(step_lines):
        said = (
            f"the step's code read {missing[0]} from its environment, which did not have it (a secret not "
            "set, withheld from this run, or not passed to the step)"
        )
        return reread(
            diagnosis, Owner.REPOSITORY, Category.CONFIG, Action.ESCALATE, said, replaces_evidence=True
        )
    unset = unset_in(step_lines)
    # a variable the header shows empty and the output says is not set: a secret or a repository variable
    # the run did not get, whatever its name
    named = [*unset, *unset_in(step_lines, any_name=True)]
    names = empty_secrets(header, named)
    travis = not names and _travis_gave_none(log_lines)
    none = not names and (travis or secret_source(log_lines) == "None")
    if not names and not none:
        stated = _stated_unset(step_lines)
        if stated and (summary or diagnosis.category is Category.UNKNOWN):
            said = f"its output says a secret is not set ({stated[0][:80]}) and names no other cause"
            return reread(
                diagnosis, Owner.REPOSITORY, Category.CONFIG, Action.ESCALATE, said, replaces_evidence=True
            )
        return diagnosis
    told = any(_names(name, named) for name in names)
    refused = told or bool(none and unset) or any(CREDENTIAL.search(line) for line in step_lines)
    if none:
        if not refused:
            return diagnosis  # no secret was missed that the output names
        given = "Travis removed its encrypted variables" if travis else "Secret source: None"
        said = f"the job was given no secrets ({given}, as a fork's run); its output misses one"
        return reread(
            diagnosis, Owner.REPOSITORY, Category.CONFIG, Action.ESCALATE, said, replaces_evidence=True
        )
    if not refused and not (summary or diagnosis.category is Category.UNKNOWN):
        return diagnosis
    shown = ", ".join(names[:3])
    why = (
        "its output says so"
        if told
        else "its output refused a credential"
        if refused
        else "its output names no other cause"
    )
    said = f"the step ran with {shown} empty (a secret not set, or withheld from a fork); {why}"
    return reread(diagnosis, Owner.REPOSITORY, Category.CONFIG, Action.ESCALATE, said, replaces_evidence=True)
