"""The heal bundle as the deliver stage meets it: written by a machine the fork's code ran on.

Each refusal is a forgery the fork's code could write: a bundle for another PR, run or commit, a file edited
after its digests were computed, or a diff that would lead ``git apply`` out of the tree, into ``.git/``,
through a symlink or a submodule. The real-git cases make the diff with ``git diff --cached --binary
--no-renames`` in a temporary repository, as the heal stage does.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from healer.change.bundle import (
    BUNDLE_NAME,
    MAX_BUNDLE_BYTES,
    BundleCheck,
    BundleError,
    HealBundle,
    check_identity,
    diff_problems,
    read_bundle,
    write_bundle,
)

HEAD, BASE, OLD = "a" * 40, "b" * 40, "c" * 40

DIFF = """\
diff --git a/src/calc.py b/src/calc.py
index 3b18e51..a9c8f2e 100644
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""

RECORD = {
    "category": "lint",
    "ran": ["ruff check --fix", "ruff format"],
    "verification": {"passed": True, "seconds": 12.5, "command": None},
    "usage": {"input_tokens": 1200, "output_tokens": 340},
    "notes": "fixed the sign 'ä' \u2014 and \"quotes\"",
}


def make_bundle(**changes: Any) -> HealBundle:
    fields: dict[str, Any] = {
        "repository": "octo/calc",
        "pr": 12,
        "run_id": 9876543210,
        "run_attempt": 1,
        "head_sha": HEAD,
        "base_sha": BASE,
        "checks": (BundleCheck("lint", 1), BundleCheck("test (3.12)", 2)),
        "diff": DIFF,
        "record": RECORD,
    }
    return HealBundle(**{**fields, **changes})


def written(tmp_path: Path, bundle: HealBundle | None = None) -> Path:
    return write_bundle(tmp_path / BUNDLE_NAME, bundle or make_bundle())


def rewrite(path: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """Edit a written bundle as the fork's code would: parse, change, write back, digests untouched."""
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def refusal(path: Path, **kwargs: Any) -> str:
    with pytest.raises(BundleError) as caught:
        read_bundle(path, **kwargs)
    return str(caught.value)


# --- writing and reading ------------------------------------------------------------------------------------


def test_a_bundle_round_trips(tmp_path):
    bundle = make_bundle()
    path = write_bundle(tmp_path / BUNDLE_NAME, bundle)
    assert path == tmp_path / BUNDLE_NAME
    assert read_bundle(path) == bundle
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 1
    assert set(data["digests"]) == {"diff", "record", "bundle"}


def test_a_directory_means_the_bundle_file_in_it(tmp_path):
    path = write_bundle(tmp_path, make_bundle())
    assert path == tmp_path / BUNDLE_NAME
    assert read_bundle(tmp_path) == make_bundle()
    assert [p.name for p in tmp_path.iterdir()] == [BUNDLE_NAME]  # no temporary file left behind


def test_an_empty_change_round_trips(tmp_path):
    assert read_bundle(written(tmp_path, make_bundle(diff="", record={}))).diff == ""


class Colour(str, Enum):
    RED = "red"


def test_the_record_is_kept_as_plain_json_values(tmp_path):
    bundle = make_bundle(
        record={"ran": ("a", "b"), "category": Colour.RED, "nested": {"x": (1, (2.5, None))}}
    )
    back = read_bundle(written(tmp_path, bundle))
    assert back.record == {"ran": ["a", "b"], "category": "red", "nested": {"x": [1, [2.5, None]]}}
    assert type(back.record["category"]) is str


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param({"head_sha": "A" * 40}, "head_sha 'AAAA", id="upper-case-sha"),
        pytest.param({"base_sha": "abc"}, "base_sha 'abc'", id="short-sha"),
        pytest.param({"pr": 0}, "pr is 0, not a positive whole number", id="pr-zero"),
        pytest.param({"run_attempt": True}, "run_attempt is True", id="bool-attempt"),
        pytest.param({"checks": ()}, "must name 1 to 50 checks", id="no-checks"),
        pytest.param({"record": {"s": {1, 2}}}, "record holds a set, not a JSON value", id="set-in-record"),
        pytest.param({"record": {"x": float("nan")}}, "record holds nan", id="nan-in-record"),
        pytest.param({"record": {1: "x"}}, "key that is no string", id="int-key"),
        pytest.param({"diff": "x\ud800"}, "diff is not UTF-8 text", id="surrogate-diff"),
    ],
)
def test_the_heal_stage_cannot_write_what_the_deliver_stage_would_refuse(tmp_path, changes, message):
    with pytest.raises(BundleError) as caught:
        write_bundle(tmp_path / BUNDLE_NAME, make_bundle(**changes))
    assert message in str(caught.value)
    assert not any(tmp_path.iterdir())


def test_a_change_too_large_to_deliver_fails_in_the_heal_stage(tmp_path):
    big = "diff --git a/x b/x\n" + "+" * (MAX_BUNDLE_BYTES + 1)
    with pytest.raises(BundleError, match="too large to deliver"):
        write_bundle(tmp_path / BUNDLE_NAME, make_bundle(diff=big))


# --- reading what the fork's code may have written ----------------------------------------------------------


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.__setitem__(key, value)


def _set_check(index: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["checks"][index].__setitem__(key, value)


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"x": value}
    return value


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        pytest.param(_set("version", 2), "has version 2, and this ci-healer reads version 1", id="version-2"),
        pytest.param(_set("version", True), "has version True", id="version-true"),
        pytest.param(lambda d: d.pop("version"), "has version None", id="no-version"),
        pytest.param(lambda d: d.pop("diff"), "fields are", id="missing-field"),
        pytest.param(_set("ref", "main"), "fields are", id="extra-field"),
        pytest.param(_set("repository", "octo/calc/../x"), "repo 'octo/calc/../x'", id="bad-repository"),
        pytest.param(_set("pr", "12"), "pr is '12', not a positive whole number", id="pr-string"),
        pytest.param(_set("pr", True), "pr is True", id="pr-true"),
        pytest.param(_set("pr", -12), "pr is -12", id="pr-negative"),
        pytest.param(_set("run_id", 0), "run_id is 0", id="run-zero"),
        pytest.param(_set("run_id", 2**60), "run_id is 1152921504606846976", id="run-huge"),
        pytest.param(_set("run_attempt", 1.0), "run_attempt is 1.0", id="attempt-float"),
        pytest.param(_set("head_sha", "g" * 40), "head_sha 'gggg", id="head-not-hex"),
        pytest.param(_set("head_sha", HEAD[:39]), "head_sha 'aaaa", id="head-short"),
        pytest.param(_set("base_sha", None), "base_sha None", id="base-null"),
        pytest.param(_set("checks", []), "must name 1 to 50 checks", id="no-checks"),
        pytest.param(
            _set("checks", [{"check": f"c{i}", "attempt": 1} for i in range(51)]),
            "must name 1 to 50 checks",
            id="51-checks",
        ),
        pytest.param(_set("checks", {"lint": 1}), "must name 1 to 50 checks", id="checks-object"),
        pytest.param(_set("checks", [["lint", 1]]), "is not a check and an attempt", id="check-list"),
        pytest.param(lambda d: d["checks"][0].pop("attempt"), "not a check and an attempt", id="no-attempt"),
        pytest.param(_set_check(0, "check", "lint\n::error::x"), "'lint\\n::error::x'", id="newline-name"),
        pytest.param(_set_check(0, "check", "a\x1b[31m"), "control characters", id="escape-name"),
        pytest.param(_set_check(0, "check", "lint\u202e"), "control characters", id="bidi-name"),
        pytest.param(_set_check(0, "check", "x" * 201), "over 200 characters", id="long-name"),
        pytest.param(_set_check(0, "check", ""), "check '' is empty", id="empty-name"),
        pytest.param(_set_check(1, "check", "lint"), "named twice", id="same-name-twice"),
        pytest.param(_set_check(0, "check", 7), "check 7 is", id="name-number"),
        pytest.param(_set_check(0, "attempt", 0), "attempt of check 'lint' is 0", id="attempt-zero"),
        pytest.param(_set("diff", ["x"]), "diff is not UTF-8 text", id="diff-list"),
        pytest.param(_set("record", []), "record is not a JSON object", id="record-list"),
        pytest.param(_set("record", _deep(40)), "record nests deeper than 16", id="record-deep"),
        pytest.param(_set("record", {"x": "y" * 1_100_000}), "record is over 1048576", id="record-large"),
        pytest.param(_set("record", {"n": 10**30}), "number too large", id="record-huge-number"),
        pytest.param(_set("digests", "sha256"), "digests are not those of its", id="digests-string"),
        pytest.param(lambda d: d["digests"].pop("diff"), "digests are not those of its", id="no-digest"),
        pytest.param(lambda d: d["digests"].update(x="0"), "digests are not those of its", id="extra-digest"),
        pytest.param(
            lambda d: d.__setitem__("diff", d["diff"].replace("a + b", "a * b")),
            "diff does not match its sha256 digest: the file was cut short or edited",
            id="diff-edited",
        ),
        pytest.param(
            lambda d: d["record"]["verification"].__setitem__("passed", False),
            "record does not match its sha256 digest",
            id="record-edited",
        ),
        pytest.param(_set("pr", 13), "bundle does not match its sha256 digest", id="pr-edited"),
        pytest.param(_set_check(1, "attempt", 1), "bundle does not match its sha256", id="attempt-edited"),
    ],
)
def test_a_forged_or_damaged_bundle_is_refused(tmp_path, edit, message):
    assert message in refusal(rewrite(written(tmp_path), edit))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(b"", "not JSON (JSONDecodeError)", id="empty"),
        pytest.param(b"{", "not JSON", id="open-brace"),
        pytest.param(b"\xff\xfe{}", "not JSON (UnicodeDecodeError)", id="not-utf8"),
        pytest.param(b"[1, 2]", "not a JSON object", id="array"),
        pytest.param(b'{"version": NaN}', "holds NaN, which is not JSON", id="nan"),
        pytest.param(b'{"version": 1, "version": 1}', "names a key twice", id="duplicate-key"),
        pytest.param(b"[" * 100_000, "not JSON (RecursionError)", id="deep-nesting"),
        pytest.param(b'{"version": 1' + b"1" * 5000 + b"}", "not JSON (ValueError)", id="huge-integer"),
    ],
)
def test_a_file_that_is_not_a_bundle_is_refused(tmp_path, text, message):
    path = tmp_path / BUNDLE_NAME
    path.write_bytes(text)
    assert message in refusal(path)


def test_a_truncated_bundle_is_refused(tmp_path):
    path = written(tmp_path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert "not JSON" in refusal(path)


def test_a_lone_surrogate_in_the_diff_is_refused(tmp_path):
    path = written(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("a + b", "a \\ud800 b"), encoding="utf-8")
    assert "diff is not UTF-8 text" in refusal(path)


def test_a_forger_who_recomputes_the_digests_still_meets_the_field_checks(tmp_path):
    # the digests are no signature: whoever rewrites the file can rewrite them; the fields are checked anyway
    path = write_bundle(tmp_path / BUNDLE_NAME, make_bundle(pr=13))
    assert read_bundle(path).pr == 13  # well-formed: only check_identity can tell it is for another PR
    with pytest.raises(BundleError, match="pull request 13, not 12"):
        check_identity(read_bundle(path), **IDENTITY)


class ReadSpy:
    """A file handle that notes what is read from it."""

    def __init__(self, handle: Any, reads: list[int]) -> None:
        self.handle, self.reads = handle, reads

    def __enter__(self) -> ReadSpy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def fileno(self) -> int:
        return self.handle.fileno()

    def read(self, size: int = -1) -> bytes:
        self.reads.append(size)
        return self.handle.read(size)


def test_a_17_mib_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / BUNDLE_NAME
    with path.open("wb") as sparse:
        sparse.truncate(17 * 1024 * 1024)  # a sparse file: 17 MiB long, no blocks
    reads: list[int] = []
    fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode: ReadSpy(fdopen(fd, mode), reads))
    assert f"the heal bundle is {17 * 1024 * 1024} bytes, over {MAX_BUNDLE_BYTES}" in refusal(path)
    assert reads == []


def test_no_more_than_the_limit_is_ever_read(tmp_path, monkeypatch):
    path = written(tmp_path)
    reads: list[int] = []
    fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode: ReadSpy(fdopen(fd, mode), reads))
    read_bundle(path, max_bytes=MAX_BUNDLE_BYTES)
    assert reads == [MAX_BUNDLE_BYTES + 1]


def test_a_smaller_limit_is_honoured(tmp_path):
    assert "over 100" in refusal(written(tmp_path), max_bytes=100)


def test_a_symlink_is_not_followed(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / BUNDLE_NAME
    link.symlink_to(written(tmp_path / "elsewhere"))
    assert "cannot open the heal bundle" in refusal(link)


def test_a_fifo_is_not_read(tmp_path):
    fifo = tmp_path / BUNDLE_NAME
    os.mkfifo(fifo)
    try:
        assert "is not a regular file" in refusal(fifo)
    finally:
        fifo.unlink()  # pytest keeps the last runs' folders: a fifo there would block whoever opens it


def test_a_missing_bundle_says_so(tmp_path):
    assert "cannot open the heal bundle" in refusal(tmp_path / "nothing.json")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


KEYS = ["version", "digests", "repository", "pr", "run_id", "run_attempt", "head_sha", "base_sha", "checks"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from([*KEYS, "diff", "record"]), value=_JSON)
def test_any_value_in_any_field_is_either_the_original_or_refused(tmp_path, field, value):
    path = written(tmp_path)
    original = json.loads(path.read_text(encoding="utf-8"))
    rewrite(path, _set(field, value))
    try:
        back = read_bundle(path)
    except BundleError:
        return
    assert value == original[field] and back == make_bundle()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(noise=st.binary(max_size=200))
def test_arbitrary_bytes_raise_only_bundle_errors(tmp_path, noise):
    path = tmp_path / BUNDLE_NAME
    path.write_bytes(noise)
    with pytest.raises(BundleError):
        read_bundle(path)


# --- identity: the bundle against what the deliver stage learns from GitHub -------------------------------

IDENTITY: dict[str, Any] = {
    "repository": "octo/calc",
    "pr": 12,
    "run_id": 9876543210,
    "run_attempt": 1,
    "head_sha": HEAD,
    "checks": {"lint": 1, "test (3.12)": 2},
}


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({}, id="same"),
        pytest.param({"repository": "Octo/Calc"}, id="repository-case"),
        pytest.param({"head_sha": HEAD.upper()}, id="head-case"),
    ],
)
def test_the_bundle_of_this_heal_is_accepted(changes):
    check_identity(make_bundle(), **{**IDENTITY, **changes})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param(
            {"repository": "octo/other"}, "repository 'octo/calc', not 'octo/other'", id="other-repo"
        ),
        pytest.param({"pr": 13}, "pull request 12, not 13", id="other-pr"),
        pytest.param({"run_id": 1}, "workflow run 9876543210, not 1", id="other-run"),
        pytest.param({"run_attempt": 2}, "run attempt 1, not 2", id="other-run-attempt"),
        pytest.param(
            {"head_sha": OLD},
            f"change is for commit {HEAD[:12]}, but the pull request's head is now {OLD[:12]}: it is stale",
            id="older-head",
        ),
        pytest.param(
            {"checks": {"lint": 1}}, "checks [('lint', 1), ('test (3.12)', 2)], not", id="extra-check"
        ),
        pytest.param(
            {"checks": {"lint": 1, "test (3.12)": 2, "build": 1}}, "('build', 1)", id="missing-check"
        ),
        pytest.param({"checks": {"lint": 2, "test (3.12)": 2}}, "not [('lint', 2)", id="other-attempt"),
        pytest.param({"checks": {"Lint": 1, "test (3.12)": 2}}, "not [('Lint', 1)", id="check-case"),
    ],
)
def test_a_bundle_of_another_heal_is_refused(changes, message):
    with pytest.raises(BundleError) as caught:
        check_identity(make_bundle(), **{**IDENTITY, **changes})
    assert message in str(caught.value)


def test_a_stale_bundle_says_what_happens_next():
    with pytest.raises(BundleError, match="stale and is not delivered$"):
        check_identity(make_bundle(), **{**IDENTITY, "head_sha": OLD})


# --- the diff: what git must never be asked to apply ------------------------------------------------------


def header(path: str, *extended: str) -> str:
    return "".join(line + "\n" for line in (f"diff --git a/{path} b/{path}", *extended))


ADD_LINE = "--- a/{p}\n+++ b/{p}\n@@ -1 +1,2 @@\n x\n+y\n"


def edit_of(path: str) -> str:
    return header(path, "index 1111111..2222222 100644") + ADD_LINE.format(p=path)


@pytest.mark.parametrize(
    "diff",
    [
        pytest.param("", id="empty"),
        pytest.param(DIFF, id="edit"),
        pytest.param(header("tool", "old mode 100644", "new mode 100755"), id="made-executable"),
        pytest.param(header("empty.txt", "new file mode 100644", "index 0000000..e69de29"), id="empty-file"),
        pytest.param(
            header("gone.py", "deleted file mode 100644", "index 1111111..0000000")
            + "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
            id="deleted-file",
        ),
        pytest.param(
            header("new.py", "new file mode 100755", "index 0000000..1111111")
            + "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
            id="new-file-no-newline",
        ),
        pytest.param(
            header("doc.md", "index 1111111..2222222 100644")
            + "--- a/doc.md\n+++ b/doc.md\n@@ -1,3 +1,5 @@\n x\r\n-diff --git a/.git/x b/.git/x\n"
            "+new file mode 120000\n++++ b/../etc\n+rename from y\n \n",
            id="content-that-looks-like-headers",
        ),
        pytest.param(
            'diff --git "a/sp\\303\\244ce" "b/sp\\303\\244ce"\nindex 1111111..2222222 100644\n'
            '--- "a/sp\\303\\244ce"\n+++ "b/sp\\303\\244ce"\n@@ -1 +1,2 @@\n x\n+y\n',
            id="quoted-non-ascii",
        ),
        pytest.param(
            "diff --git a/my file b/my file\nindex 1111111..2222222 100644\n"
            "--- a/my file\t\n+++ b/my file\t\n@@ -1 +1,2 @@\n x\n+y\n",
            id="space-in-name",
        ),
        pytest.param(edit_of("a") + edit_of("b/c.py"), id="two-files"),
        pytest.param(
            edit_of("x").replace("@@ -1 +1,2 @@", "@@ -3 +3,2 @@ def f():"), id="hunk-with-function-context"
        ),
    ],
)
def test_a_diff_as_git_writes_it_passes(diff):
    assert diff_problems(diff) == []


@pytest.mark.parametrize(
    ("diff", "message"),
    [
        pytest.param(DIFF.replace("a + b", "a\0b"), "NUL character", id="nul"),
        pytest.param(DIFF.replace("a + b", "a\ud800"), "not UTF-8", id="surrogate"),
        pytest.param(edit_of("/etc/passwd"), "line 1: the path '/etc/passwd' is absolute", id="absolute"),
        pytest.param(edit_of("../outside"), "the path '../outside' climbs out of the tree", id="dotdot"),
        pytest.param(edit_of("src/../../x"), "'src/../../x' climbs out", id="inner-dotdot"),
        pytest.param(edit_of(".git/hooks/pre-commit"), "'.git/hooks/pre-commit' is inside .git/", id="hook"),
        pytest.param(edit_of(".GIT/config"), "inside .git/", id="git-upper-case"),
        pytest.param(edit_of("vendor/.git/config"), "inside .git/", id="nested-git"),
        pytest.param(edit_of(".git./hooks/post-checkout"), "inside .git/", id="git-trailing-dot"),
        pytest.param(edit_of("a\\b"), "'a\\\\b' holds control characters or a backslash", id="backslash"),
        pytest.param(edit_of("a\x1bb"), "control characters", id="escape-unquoted"),
        pytest.param(edit_of("a//b"), "has an empty or '.' component", id="empty-component"),
        pytest.param(edit_of("./a"), "has an empty or '.' component", id="dot-component"),
        pytest.param(
            header("link", "new file mode 120000", "index 0000000..1111111")
            + "--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+/home/runner\n\\ No newline at end of file\n",
            "line 2: 'link' has mode '120000' (a symlink), not 100644 or 100755",
            id="new-symlink",
        ),
        pytest.param(
            header("tool", "old mode 100644", "new mode 120000"),
            "mode '120000' (a symlink)",
            id="mode-to-symlink",
        ),
        pytest.param(
            header("lib", "index 1111111..2222222 120000") + ADD_LINE.format(p="lib"),
            "line 2: 'lib' has mode '120000' (a symlink)",
            id="index-symlink",
        ),
        pytest.param(
            header("dep", "new file mode 160000", "index 0000000..1111111")
            + "--- /dev/null\n+++ b/dep\n@@ -0,0 +1 @@\n+Subproject commit "
            + OLD
            + "\n",
            "'dep' has mode '160000' (a submodule)",
            id="new-submodule",
        ),
        pytest.param(header("dep", "index 1111111..2222222 160000"), "(a submodule)", id="index-submodule"),
        pytest.param(
            header("d", "deleted file mode 040000"), "'040000' (not a regular file)", id="tree-mode"
        ),
        pytest.param(header("x", "new file mode "), "mode '' (not a regular file)", id="empty-mode"),
        pytest.param(
            "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n",
            "line 3: a rename or copy header, which the healer (--no-renames) never writes",
            id="rename",
        ),
        pytest.param(
            header("x.py", "similarity index 90%", "copy from x.py", "copy to x.py"),
            "line 3: a rename or copy header",
            id="copy",
        ),
        pytest.param(header("x", "dissimilarity index 80%"), "line 2: a rename or copy header", id="break"),
        pytest.param(
            header("logo.png", "new file mode 100644", "index 0000000..1111111", "GIT binary patch")
            + "literal 4\nLcmZ?wbNT=P0TTcQ\n\nliteral 0\nHcmV?d00001\n\n",
            "line 4: 'logo.png' has binary content, which is not delivered",
            id="binary-patch",
        ),
        pytest.param(
            header(
                "logo.png", "index 1111111..2222222 100644", "Binary files a/logo.png and b/logo.png differ"
            ),
            "'logo.png' has binary content",
            id="binary-files-differ",
        ),
        pytest.param(
            "diff --git a/x b/y\nindex 1111111..2222222 100644\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
            "line 1: the diff header's a/ and b/ paths differ or cannot be read",
            id="paths-differ",
        ),
        pytest.param("diff --git a/x\n", "paths differ or cannot be read", id="one-path"),
        pytest.param('diff --git "a/x\\q" "b/x\\q"\n', "cannot be read", id="unknown-escape"),
        pytest.param('diff --git "a/\\377" "b/\\377"\n', "cannot be read", id="quoted-not-utf8"),
        pytest.param('diff --git "a/x" b/x\n', "cannot be read", id="half-quoted"),
        pytest.param(
            'diff --git "a/..\\057etc" "b/..\\057etc"\n', "the path '../etc' climbs out", id="quoted-slash"
        ),
        pytest.param(
            'diff --git "a/.gi\\164/config" "b/.gi\\164/config"\n',
            "'.git/config' is inside .git/",
            id="quoted-git",
        ),
        pytest.param(
            'diff --git "a/.git/sp\\303\\244ce" "b/.git/sp\\303\\244ce"\n',
            "the path '.git/späce' is inside .git/",
            id="quoted-decoded-in-message",
        ),
        pytest.param(
            'diff --git "a/x\\ny" "b/x\\ny"\n',
            "the path 'x\\ny' holds control characters",
            id="quoted-newline",
        ),
        pytest.param(
            edit_of("x").replace("--- a/x", "--- a/.git/config"),
            "line 3: the --- line names another path than the diff header",
            id="minus-path-differs",
        ),
        pytest.param(
            edit_of("x").replace("+++ b/x", "+++ b/../x"),
            "the +++ line names another path",
            id="plus-path-differs",
        ),
        pytest.param(
            "From: someone\n" + DIFF, "line 1: 'From: someone' is not part of a git diff", id="preamble"
        ),
        pytest.param(
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            "line 1: '--- a/x' is not part of a git diff",
            id="plain-diff",
        ),
        pytest.param(DIFF + "+extra\n", "line 9: '+extra' is not part of a git diff", id="hunk-too-long"),
        pytest.param(
            DIFF[: DIFF.rindex("\n+") + 1], "the diff ends inside a file's change: it was cut short", id="cut"
        ),
        pytest.param(header("x", "--- a/x"), "ends inside a file's change", id="cut-after-minus"),
        pytest.param(DIFF.replace(" def add", ""), "line 6: the hunk does not hold", id="hunk-empty-line"),
        pytest.param(
            DIFF.replace(" def add", "Xdef add"),
            "line 6: the hunk does not hold the lines its @@ header counts",
            id="hunk-bad-line",
        ),
        pytest.param(edit_of("x") + edit_of("x"), "line 8: the diff changes 'x' twice", id="same-file-twice"),
        pytest.param(
            edit_of("x")
            .replace("index", "new mode 100644\nindex")
            .replace("@@ -1", "new mode 120000\n@@ -1"),
            "is not part of a git diff",
            id="header-after-body",
        ),
    ],
)
def test_a_forged_diff_is_refused(diff, message):
    problems = diff_problems(diff)
    assert any(message in problem for problem in problems), problems


def test_a_diff_too_large_is_refused_before_it_is_parsed():
    size = len(DIFF.encode("utf-8"))
    assert diff_problems(DIFF, max_bytes=size) == []
    too_large = f"the diff is {size + 5} bytes, more than the {size} a delivered change may be"
    assert diff_problems(DIFF + "junk\n", max_bytes=size) == [too_large]  # the junk line is never read


def test_many_problems_are_cut_short():
    problems = diff_problems("junk\n" * 1000)
    assert len(problems) == 21
    assert problems[-1] == "and more: only the first 20 problems are listed"


_PATH_CHARS = st.sampled_from(list("abcz09_-.+ äß日/\\\t\n\x1b\x7f\"'") + [".git", "..", "\u202e"])


def git_quote(path: str) -> str:
    """Quote a path as git does (core.quotePath): C escapes, octal for every byte not printable ASCII."""
    named = dict(zip('\a\b\t\n\v\f\r"\\', 'abtnvfr"\\', strict=True))
    out = []
    for byte in path.encode("utf-8"):
        char = chr(byte)
        if char in named:
            out.append("\\" + named[char])
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


def _bad(path: str) -> bool:
    """The rule, said again independently of the module: what a decoded path must not be."""
    parts = path.split("/")
    return (
        path.startswith("/")
        or any(p in ("", ".", "..") or p.lower().rstrip(". ") == ".git" for p in parts)
        or not path.isprintable()
        or "\\" in path
    )


@settings(max_examples=500, deadline=None)
@given(path=st.lists(_PATH_CHARS, min_size=1, max_size=12).map("".join))
def test_a_quoted_path_is_decoded_before_it_is_judged(path):
    quoted = git_quote(path)
    diff = f'diff --git "a/{quoted}" "b/{quoted}"\nold mode 100644\nnew mode 100755\n'
    problems = diff_problems(diff)
    assert bool(problems) == _bad(path), (path, problems)


@settings(max_examples=500, deadline=None)
@given(diff=st.text(st.characters(blacklist_categories=["Cs"]), max_size=300))
def test_any_text_gives_sentences_never_an_exception(diff):
    for problem in diff_problems(diff):
        assert "\n" not in problem and "\x1b" not in problem and problem.isprintable()


DIFF_LINES = [
    "diff --git a/x b/x", "--- a/x", "+++ b/x", "@@ -1 +1 @@", "@@ -1,2 +1 @@", " a", "-a", "+b", "",
    "\\ No newline at end of file", "index 1..2 100644", "new file mode 120000", "rename from y",
    "GIT binary patch", "diff --git a/.git/x b/.git/x",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.sampled_from(DIFF_LINES), max_size=30))
def test_no_arrangement_of_header_lines_slips_a_forbidden_one_through(lines):
    diff = "".join(line + "\n" for line in lines)
    problems = diff_problems(diff)
    # a forbidden header is refused wherever it stands: as a header, or as a line that is no part of a diff
    if any(line in ("new file mode 120000", "rename from y", "GIT binary patch") for line in lines):
        assert problems
    if "diff --git a/.git/x b/.git/x" in lines:
        assert problems


# --- a real diff, made as the heal stage makes it ---------------------------------------------------------


class Repo:
    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str, input: bytes | None = None) -> bytes:
        env = {
            **os.environ,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        }
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=env, input=input, capture_output=True, check=True
        )
        return done.stdout

    def write(self, name: str, data: bytes | str) -> None:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    def staged_diff(self) -> bytes:
        self.git("add", "-A")
        return self.git("diff", "--cached", "--binary", "--no-renames")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.path.mkdir()
    repo.git("init", "-q", "-b", "main")
    repo.write("src/calc.py", "def add(a, b):\n    return a - b\n")
    repo.write("my notes.txt", "one\n")
    repo.write("späce.md", "ä\n")
    repo.write("crlf.txt", "a\r\nb\r\n")
    repo.write("gone.txt", "bye\n")
    repo.write("tool.sh", "echo hi")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "base")
    return repo


def test_a_real_diff_passes_and_round_trips_byte_for_byte(tmp_path, repo):
    base = repo.git("rev-parse", "HEAD").decode().strip()
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n")
    repo.write("my notes.txt", "one\ntwo\n")
    repo.write("späce.md", "ä\nö\n")
    repo.write("crlf.txt", "a\r\nB\r\n")
    repo.write("new/file.py", "+++ b/.git/config\ndiff --git a/x b/y\n")
    repo.write("tool.sh", "echo hello")
    (repo.path / "tool.sh").chmod(0o755)
    (repo.path / "gone.txt").unlink()
    raw = repo.staged_diff()
    tree = repo.git("write-tree").strip()
    diff = raw.decode("utf-8")
    assert '"a/sp\\303\\244ce.md"' in diff and "--- a/my notes.txt\t" in diff  # git's quoting, as parsed
    assert diff_problems(diff) == []

    path = write_bundle(tmp_path / BUNDLE_NAME, make_bundle(head_sha=base, diff=diff))
    back = read_bundle(path)
    assert back.diff.encode("utf-8") == raw

    # and git applies it, on a copy of the base, to the very tree the heal staged
    clean = tmp_path / "clean"
    subprocess.run(["git", "clone", "-q", str(repo.path), str(clean)], check=True, capture_output=True)
    other = Repo(clean)
    other.git("apply", "--index", "-", input=back.diff.encode("utf-8"))
    assert other.git("write-tree").strip() == tree


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda r: (r.path / "link").symlink_to("/etc/passwd"), "(a symlink)", id="symlink"),
        pytest.param(lambda r: r.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0"), "binary content", id="binary"),
        pytest.param(lambda r: r.write("dir\\file", "x\n"), "backslash", id="backslash-name"),
    ],
)
def test_a_real_diff_of_what_is_never_delivered_is_refused(repo, make, message):
    make(repo)
    problems = diff_problems(repo.staged_diff().decode("utf-8"))
    assert any(message in p for p in problems), problems


def test_a_real_submodule_is_refused(repo):
    head = repo.git("rev-parse", "HEAD").decode().strip()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{head},vendor/dep")
    diff = repo.git("diff", "--cached", "--binary", "--no-renames").decode("utf-8")
    assert any("(a submodule)" in p for p in diff_problems(diff)), diff


def test_a_real_rename_is_refused_as_a_forgery(repo):
    (repo.path / "src/calc.py").rename(repo.path / "src/calc2.py")
    repo.git("add", "-A")
    diff = repo.git("diff", "--cached", "-M").decode(
        "utf-8"
    )  # with rename detection: never what the heal writes
    assert any("rename or copy header" in p for p in diff_problems(diff)), diff
