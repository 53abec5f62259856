"""The shapes of failure evidence: one expression per kind of report, from the most telling to the least,
each with its strength (1–3), the category it implies when it does, and the words a line must hold for the
expression to be tried. Read by :func:`healer.diagnosis.shapes.read_line`, first match wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from healer.model import Category


@dataclass(frozen=True)
class Shape:
    pattern: re.Pattern[str]
    strength: int
    category: Category | None = None
    # the shape is tried only on a line whose lower-cased text holds one of these (all lines when empty):
    # a cheap look that spares most lines the expression's many branches
    words: tuple[str, ...] = ()

    def found(self, line: str, low: str) -> bool:
        if self.words and not any(word in low for word in self.words):
            return False
        return self.pattern.search(line) is not None


def _shape(
    pattern: str, strength: int, category: Category | None = None, words: tuple[str, ...] = ()
) -> Shape:
    return Shape(re.compile(pattern), strength, category, words)


_B, _T, _L, _F = Category.BUILD, Category.TEST, Category.LINT, Category.FORMAT
_D, _N, _C, _TY = Category.DEPENDENCY, Category.TRANSIENT, Category.CONFIG, Category.TYPECHECK

# From the most telling to the least; the first that matches decides the line's strength and hint.
SHAPES: tuple[Shape, ...] = (
    # the network or a server: a retry would likely pass
    _shape(
        r"(?i)could not resolve host|temporary failure in name resolution|name or service not known"
        r"|connection (?:refused|reset|timed out)|could not create connection|network is unreachable"
        r"|\b(?:502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out)\b|ETIMEDOUT|ECONNRESET"
        r"|ECONNREFUSED|EAI_AGAIN|TLS handshake timeout|Failed to connect to|Read timed out"
        r"|no certificate subject alternative name matches|SSL certificate problem"
        r"|(?:could not|couldn't|unable to) establish (?:an? )?(?:HTTPS? |TCP |SSL )?connection",
        3,
        _N,
        (
            "resolv",
            "connect",
            "unreachable",
            "gateway",
            "unavailable",
            "etimedout",
            "econn",
            "eai_again",
            "tls",
            "timed out",
            "certificate",
            "ssl",
        ),
    ),
    # resolution and installation of packages
    _shape(
        r"(?i)PackagesNotFoundError|package(?:s)? (?:required but )?not available|there is no package called"
        r"|no matching (?:distribution|version|package)|could not find (?:a version|gem|package|artifact"
        r"|any version)"
        r"|could not resolve (?:dependencies|dependency|artifact|all (?:files|dependencies))"
        r"|unable to resolve dependency"
        r"|version solving failed|\bERESOLVE\b|no version of .{1,80} is available|is unavailable\b"
        r"|unsatisfiable|conflicting (?:requirements|dependencies)|dependency conflict|requires .{1,80}, but"
        r"|Failed to (?:download|fetch|install) (?:package|dependency|artifact)|\bE404\b|404 Not Found"
        r"|Installation failed|failed to build gem|Unable to locate package|has no installation candidate"
        r"|md5sum did not match|checksum (?:mismatch|did not match)"
        r"|requirements could not be resolved to an installable set",
        3,
        _D,
        (
            "packagesnotfound",
            "not available",
            "no package",
            "no matching",
            "could not find",
            "could not resolve",
            "unable to resolve",
            "version solving",
            "eresolve",
            "no version",
            "unavailable",
            "unsatisfiable",
            "conflict",
            "requires ",
            "failed to",
            "e404",
            "404",
            "installation failed",
            "unable to locate",
            "candidate",
            "md5sum",
            "checksum",
            "requirements could not",
        ),
    ),
    # the environment or the workflow: a command or a file that is not there, a permission
    _shape(
        r"(?i)command not found|: not found$|No such file or directory|Permission denied"
        r"|is (?:currently )?not installed|is not recognized as (?:an internal|the name of a cmdlet)"
        r"|Unable to find a destination matching|No Rakefile found|No (?:such )?(?:task|target) (?:named )?"
        r"|don't know how to (?:make|build) task|No rule to make target|Unknown (?:command|task|target)"
        r"|error while loading shared libraries|cannot open shared object file|Missing script:"
        r"|(?:secret|environment variable|env var)s? .{0,40}(?:not set|missing|is empty)"
        r"|executable file not found in \$PATH|\bRemote branch .{1,200} not found|invalid reference format"
        r"|\b[Kk]eystore (?:file )?.{0,200}(?:not found|does not exist|was not found)",
        3,
        _C,
        (
            "not found",
            "no such file",
            "permission denied",
            "not installed",
            "not recognized",
            "unable to find a destination",
            "no rakefile",
            "no task",
            "no such",
            "no target",
            "don't know how",
            "no rule to make",
            "unknown",
            "shared librar",
            "shared object",
            "missing script",
            "secret",
            "environment variable",
            "env var",
            "invalid reference",
            "keystore",
        ),
    ),
    # reports of tools that name what failed: a Gradle lint task, Android lint, Dart's analyzer (lint);
    # Biome's and Prettier's checks, go.mod drift (format); bun's, vitest's and dotnet test's failures;
    # svelte-check (typecheck); BuildKit (build); a service's health check (from the command)
    _shape(
        r"^> Task \S*(?:[Ll]int|[Dd]etekt|[Kk]tlint|[Cc]heckstyle|[Ss]potless|[Pp]md)\w*\s+FAILED"
        r"|\bLint found [1-9]\d* errors?|^\s*error • .+ • \S+:\d+(?::\d+)? • \w+|^[1-9]\d* issues? found\b",
        3,
        _L,
        ("> task", "lint found", " • ", "issue"),
    ),
    _shape(
        r"Formatter would have printed|\bCode style issues found\b|\bupdates to go\.(?:mod|sum) needed"
        r"|\bgo\.(?:mod|sum) is not tidy",
        3,
        _F,
        ("formatter would", "code style issues", "updates to go.", "not tidy"),
    ),
    _shape(
        r"^\s*\(fail\) \S|^\s*[1-9]\d* fail$|^\s*Failed!\s+- Failed:\s+[1-9]|\bTest Files\s+[1-9]\d* failed",
        3,
        _T,
        ("(fail)", " fail", "failed!", "test files"),
    ),
    _shape(r"\bsvelte-check found [1-9]\d* errors?", 3, _TY, ("svelte-check",)),
    _shape(r"\bfailed to solve\b", 3, _B, ("failed to solve",)),
    _shape(r"\bis unhealthy\b|\b[Hh]ealth ?check (?:failed|timed out)", 3, None, ("unhealthy", "health")),
    # a compiler's diagnostic: file:line[:col]: error, error[E0432], ❌ file:line, [error] file.scala:1:2
    _shape(
        r"^\s*(?:\[error\] |❌ |ERROR: |e: )?(?:file://)?[\w./\\~@+-]*[\w+-]\.\w{1,12}"
        r"(?::\d+(?::\d+)?:? ?|\(\d+(?:,\d+)?\):? ?|, line \d+(?:, col(?:umn)? \d+)?:? )(?:fatal )?error\b"
        r"|^\s*error(?:\[E\d+\])?: |^\s*\[error\] \S*[\w.]+\.\w{1,12}:\d+(?::\d+)?:"
        r"|❌\s+\S*[\w.]+\.\w{1,12}:\d+(?::\d+)?:"
        r"|\berror (?:CS|TS|C|LNK|FS|BC)\d{3,5}\b|^\s*\*\* \((?:CompileError|SyntaxError|TokenMissingError)\)"
        r"|\bCOMPILATION ERROR\b|\bcompilation (?:failed|terminated)|\bUnable to compile\b|\bSyntaxError\b"
        r"|\bcould not compile\b|\bBUILD FAILED\b|\b[Bb]uild failed\b|\bCMake Error\b|\bconfigure: error\b"
        r"|\bundefined reference to\b|\bld: .*(?:not found|undefined)|\bcollect2: error"
        r"|(?i:\b(?:syntax|parse|parser|parsing|scanning)\b.{0,200}\b(?:line|column) \d+"
        r"|\bon line \d+ of \S)",
        3,
        _B,
        (
            "error",
            "compil",
            "syntax",
            "build failed",
            "undefined reference",
            "ld: ",
            "pars",
            "scanning",
            "on line",
            "❌",
        ),
    ),
    # a test's failure report, an assertion, a runner's summary: the shapes at a line's start first
    _shape(
        r"^\s*(?:not ok \d+|--- FAIL:|FAIL:|FAIL\b|✗|✖|×|✘|\d+\) (?:test )?\S|(?:Expected|Actual"
        r"|Received)\b.{0,3}:)"
        r"|^_{3,} .+ _{3,}$|^=+ (?:FAILURES|ERRORS) =+$",
        3,
        _T,
    ),
    _shape(
        r"\bFAILED\b|\bFAILURES?\b!?$|\bfailed on line \d+|\bAssertion(?:Error| failed)"
        r"|\bassert(?:ion)? failed"
        r"|\bexpected:? .{1,200}(?:\bgot\b|\bbut (?:was|got)\b|\bactual\b|\breceived\b|\binstead\b)"
        r"|\bExpected .{1,200} to (?:be|equal|have|throw|contain|match)"
        r"|\b[1-9]\d* (?:examples?|tests?|specs?|assertions?|scenarios?)?,? ?[1-9]\d* (?:failures?|failed"
        r"|errors?)\b"
        r"|\b[1-9]\d* (?:tests? )?(?:failed|failures?|failing)\b|Failed \d+/\d+ (?:subtests|test programs)"
        r"|\bDubious, test returned|Tests run: \d+, Failures: [1-9]|\bTest Suites?:? .*\b[1-9]\d* failed"
        r"|\bTEST(?:S)? FAILED\b|\btest(?:s)? failed\b"
        r"|\bTimeout of \d+ms exceeded|\btimetrap_timeout\b|Running .{1,80} failed|\bcrashed\b",
        3,
        _T,
        ("fail", "assert", "expected", "error", "dubious", "timeout of", "timetrap", "crash"),
    ),
    # a size or performance budget checked like a test (size-limit, bundlesize, Angular's budgets)
    _shape(
        r"(?i)\bsize limit (?:has )?(?:been )?exceeded"
        r"|\bexceed(?:s|ed)? (?:the |its |a )?(?:maximum |size |performance )?(?:limit|budget)\b"
        r"|\bbudgets? (?:exceeded|failed)|\bover (?:the )?budget\b",
        3,
        _T,
        ("exceed", "budget"),
    ),
    # lint and format reports: file:line[:col] followed by a rule code, stylelint's col ✖, a formatter's check
    _shape(
        r"^\s*\S+?:\s?\d+(?::\d+)?:?\s+(?:[A-Z]{1,4}\d{2,4}\b|[A-Z]\w+/[\w-]+|[a-z]+(?:-[a-z]+)+\b)"
        r"|^\s*\d+:\d+\s+(?:[✖⚠×]|error)\s|\bwould reformat\b|\bnot (?:properly )?formatted\b"
        r"|\bneeds? (?:formatting|to be formatted)\b|\bcheck-formatted\b|\bformat(?:ting)? (?:check )?failed"
        r"|\b\d+ (?:offen[cs]es?|problems?|violations?|lint errors?) (?:detected|found)?"
        r"|\bCode style issues\b|\bfailed indent_\w+"
        r"|\b[Ll]ine (?:is )?(?:too long|longer than \d+)|\btrailing (?:whitespace|spaces)\b"
        r"|\bmissing final newline",
        3,
        _L,
        (
            ":",
            "✖",
            "⚠",
            "×",
            "error",
            "format",
            "offen",
            "problem",
            "violation",
            "code style",
            "indent_",
            "line",
            "trailing",
        ),
    ),
    # exception, panic and traceback headers (the category comes from the command)
    _shape(
        r"Traceback \(most recent call last\)|\bpanicked at\b|^panic: |Exception in thread"
        r"|^\s*(?:\*\* )?\(?(?:[\w$]+[.:])*[A-Z]\w*(?:Error|Exception|Failure)\)?(?::|$| in | at )"
        r"|\bUnhandled (?:exception|rejection)|\bUncaught\b|Segmentation fault|core dumped|\bAborted\b"
        r"|^\s*\*\* .{0,80}(?:crashed|exited|error)|^\s*signal\(error\b|\{'EXIT',",
        3,
    ),
    # an error in the words tools print it with
    _shape(
        r"^\s*(?:\[[\w:. -]{0,30}\] ?)?(?:\*\*\* )?(?:fatal|FATAL|ERROR|Error|error|E)(?:\[[\w-]+\])?(?:!|:"
        r"| -|\s*$)"
        r"|^\s*\[(?:error|ERROR|fatal|FATAL)\]|^\s*\w[\w/.-]{0,60}: (?:fatal )?error\b|\bERROR!"
        r"|(?<![\w./-])(?:[Ee]rror|ERROR)(?:\[\w+\])?: |\bfatal: ",
        2,
    ),
    _shape(
        r"(?i)(?<![\w./-])(?:error|fail(?:ed|ure)?|fatal|cannot|can't|could not|couldn't|unable to"
        r"|invalid|illegal|unexpected|undefined|missing|not found|does not|did not|problem|aborted"
        r"|not defined"
        r"|unrecogni[sz]ed|rejected|not allowed|unknown option|no \w+ found)(?![\w-])",
        1,
    ),
)
