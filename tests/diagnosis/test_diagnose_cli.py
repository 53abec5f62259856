"""``healer diagnose``: readable and JSON output, and a one-line error (never a traceback) for bad input."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from healer import cli
from healer.diagnosis import diagnose

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"


def run(*argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="healer")
    diagnose.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diagnose", *argv])
    out, err = io.StringIO(), io.StringIO()
    status = diagnose.run(args, {}, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_readable_output() -> None:
    status, out, err = run(str(CORPUS / "tool-black-check.log"))
    assert (status, err) == (0, "")
    first = out.splitlines()[0]
    assert first.endswith("tool-black-check.log: format (rule python.black, confidence 0.93) → fix")
    assert "  step:      | Run black --check ." in out
    assert "  exit code: 1" in out
    assert "  fix:       black {files}" in out
    assert "  > | would reformat app/m.py" in out  # a decisive line, marked


def test_json_output_has_the_documented_fields() -> None:
    status, out, _ = run("--json", str(CORPUS / "tool-mypy-arg-type.log"))
    assert status == 0
    record = json.loads(out)
    assert record["category"] == "typecheck"
    assert record["rule"] == "python.mypy"
    assert record["step"] == "Run mypy app"
    assert record["command"] == "mypy app"
    assert record["exit_code"] == 1
    assert 0 < record["confidence"] <= 1
    assert any("Argument 1" in line for line in record["excerpt"])
    assert isinstance(record["excerpt"], list)
    assert (record["owner"], record["purpose"], record["action"]) == ("code", "typecheck", "agent")
    assert record["rerun_first"] is False
    assert record["decided_by"] == {
        "purpose": "typecheck (tool table: mypy)",
        "evidence": "typecheck: rule python.mypy",
        "row": "(code, typecheck) → agent",
    }


def test_step_and_workflow_names_give_a_plain_log_its_purpose(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(
        "2026-11-03T10:02:11.0000000Z ##[group]Run ./scripts/ship\n"
        "2026-11-03T10:02:11.0000000Z ./scripts/ship\n"
        "2026-11-03T10:02:11.0000000Z ##[endgroup]\n"
        "2026-11-03T10:02:12.0000000Z shipping 1.4.0 failed: version 1.4.0 is taken\n"
        "2026-11-03T10:02:12.0000000Z ##[error]Process completed with exit code 1.\n",
        encoding="utf-8",
    )
    _, out, _ = run("--json", str(log))
    assert (json.loads(out)["owner"], json.loads(out)["action"]) == ("unknown", "escalate")
    _, out, _ = run("--json", "--step", "Publish to PyPI", "--workflow", "Release", str(log))
    record = json.loads(out)
    assert (record["owner"], record["purpose"], record["action"]) == ("repository", "release", "escalate")
    assert record["step"] == "Publish to PyPI"
    assert record["decided_by"]["name"] == "release (step name: Publish to PyPI)"
    status, out, _ = run("--job", "unit-tests", str(log))
    assert status == 0 and "  owner:     code, the step is for test" in out
    assert "  row:       (code, test) → agent" in out


def test_a_plain_log_without_job_takes_the_name_the_runner_wrote_in_its_set_up(tmp_path: Path) -> None:
    # the runner's set-up section names the job (matrix values included); the action has the same name from
    # the Jobs API, so `healer diagnose LOG` without --job reads what the action reads
    body = (
        "2026-11-03T10:02:11.0000000Z ##[group]Run ./scripts/ship\n"
        "2026-11-03T10:02:11.0000000Z ./scripts/ship\n"
        "2026-11-03T10:02:11.0000000Z ##[endgroup]\n"
        "2026-11-03T10:02:12.0000000Z shipping 1.4.0 failed: version 1.4.0 is taken\n"
        "2026-11-03T10:02:12.0000000Z ##[error]Process completed with exit code 1.\n"
    )
    setup = (
        "\ufeff2026-11-03T10:02:01.0000000Z Current runner version: '2.321.0'\n"
        "2026-11-03T10:02:01.0000000Z ##[group]Runner Image\n"
        "2026-11-03T10:02:01.0000000Z ##[endgroup]\n"
        "2026-11-03T10:02:02.0000000Z Complete job name: unit-tests (3.12)\n"
    )
    log = tmp_path / "job.log"
    log.write_text(setup + body, encoding="utf-8")
    _, out, _ = run("--json", str(log))
    record = json.loads(out)
    assert (record["job"], record["owner"], record["action"]) == ("unit-tests (3.12)", "code", "agent")
    assert record["decided_by"]["name"] == "test (job name: unit-tests (3.12))"
    # --job says otherwise: the name given wins
    _, out, _ = run("--json", "--job", "publish", str(log))
    assert (json.loads(out)["job"], json.loads(out)["action"]) == ("publish", "escalate")
    # a line of the tool's output that says the same is not the runner's set-up
    late = tmp_path / "late.log"
    echoed = "Complete job name: unit-tests\n2026-11-03T10:02:12.0000000Z shipping"
    late.write_text(body.replace("shipping", echoed))
    _, out, _ = run("--json", str(late))
    assert json.loads(out)["job"] is None


def test_one_json_line_per_log() -> None:
    logs = [str(CORPUS / "tool-black-check.log"), str(CORPUS / "tool-tsc-missing-prop.log")]
    status, out, _ = run("--json", *logs)
    assert status == 0
    assert [json.loads(line)["category"] for line in out.splitlines()] == ["format", "typecheck"]


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    (tmp_path / "empty.log").write_bytes(b"")
    (tmp_path / "binary.log").write_bytes(bytes(range(256)) * 64)
    (tmp_path / "nul.log").write_bytes(b"\x00" * 4096)
    (tmp_path / "dir.log").mkdir()
    return {
        "missing": (tmp_path / "missing.log", "no such file"),
        "directory": (tmp_path / "dir.log", "is a directory"),
        "empty": (tmp_path / "empty.log", "is empty"),
        "binary": (tmp_path / "binary.log", "holds binary data"),
        "nul": (tmp_path / "nul.log", "holds no text"),
    }


@pytest.mark.parametrize("case", ["missing", "directory", "empty", "binary", "nul"])
def test_bad_input_is_one_line_on_stderr(tmp_path: Path, case: str) -> None:
    path, message = _bad_inputs(tmp_path)[case]
    status, out, err = run(str(path))
    assert status == 1
    assert out == ""
    assert err.startswith(f"healer diagnose: {path}: {message}")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_good_logs_are_still_diagnosed_beside_bad_ones(tmp_path: Path) -> None:
    status, out, err = run(str(tmp_path / "nope.log"), str(CORPUS / "tool-black-check.log"))
    assert status == 1
    assert err.count("\n") == 1
    assert "format (rule python.black" in out


@pytest.mark.parametrize(
    ("data", "category"),
    [
        pytest.param(
            b"##[group]Run pytest\r\n##[endgroup]\r\nFAILED tests/a.py::t - boom\r\n"
            b"##[error]Process completed with exit code 1.\r\n",
            "test",
            id="crlf",
        ),
        pytest.param(
            b"\xff\xfeFAILED tests/a.py::t - caf\xe9\n1 failed in 0.1s\n", "test", id="invalid-utf8"
        ),
        pytest.param(b"FAILED tests/a.py::t\x00 - boom\n", "test", id="some-nul"),
        pytest.param(b"x" * (1 << 20), "unknown", id="one-mebibyte-line"),
    ],
)
def test_awkward_but_readable_logs(tmp_path: Path, data: bytes, category: str) -> None:
    path = tmp_path / "job.log"
    path.write_bytes(data)
    status, out, err = run("--json", str(path))
    assert (status, err) == (0, "")
    record = json.loads(out)
    assert record["category"] == category
    assert sum(len(line) for line in record["excerpt"]) <= 8 * 1024


def test_a_truncated_log_is_read_from_its_end(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    noise = b"".join(b"2024-05-01T10:00:00.0000000Z building part %06d\n" % n for n in range(50_000))
    failure = b"2024-05-01T10:00:01.0000000Z src/a.ts(3,20): error TS2339: Property 'b' does not exist.\n"
    path.write_bytes(noise + failure)
    status, out, _ = run("--json", "--max-bytes", "4096", str(path))
    assert status == 0
    record = json.loads(out)
    assert record["category"] == "typecheck"
    assert all(line.startswith(("building part", "src/a.ts", "…")) for line in record["excerpt"])


def test_a_rules_file_comes_first(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yml"
    rules.write_text(
        "rules:\n  - id: acme.black\n    category: lint\n    action: escalate\n    match: 'would reformat'\n"
    )
    status, out, _ = run("--json", "--rules", str(rules), str(CORPUS / "tool-black-check.log"))
    assert status == 0
    record = json.loads(out)
    assert (record["rule"], record["category"], record["action"]) == ("acme.black", "lint", "escalate")


def test_an_invalid_rules_file_is_one_line(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yml"
    rules.write_text("rules:\n  - id: bad\n    category: nope\n    match: x\n")
    status, out, err = run("--rules", str(rules), str(CORPUS / "tool-black-check.log"))
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert f"{rules}: rule 'bad': `category` must be one of" in err


def test_log_text_cannot_become_a_workflow_command(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    path.write_text("::add-mask::x\n::error::forged\n\x1b]0;title\x07FAILED tests/a.py::t - \x07boom\n")
    _, out, _ = run(str(path))
    assert all(not line.lstrip().startswith("::") for line in out.splitlines())
    assert "\x07" not in out and "\x1b" not in out


def test_the_cli_entry_point_dispatches_diagnose(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["healer", "diagnose", "--json", str(CORPUS / "tool-bash-unbound.log")])
    assert status == 0
    assert json.loads(capsys.readouterr().out)["category"] == "config"


def run_stdin(data: bytes, *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="healer")
    diagnose.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diagnose", *argv])
    out, err = io.StringIO(), io.StringIO()
    status = diagnose.run(args, {}, out=out, err=err, stdin=io.BytesIO(data))
    return status, out.getvalue(), err.getvalue()


HELDOUT = Path(__file__).parent.parent / "fixtures" / "heldout"


def test_standard_input_is_read_like_a_file() -> None:
    data = (CORPUS / "tool-black-check.log").read_bytes()
    status, out, err = run_stdin(data, "-")
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == "<stdin>: format (rule python.black, confidence 0.93) → fix"


def test_standard_input_keeps_only_its_last_read_limit_bytes() -> None:
    noise = b"".join(b"2024-05-01T10:00:00.0000000Z building part %06d\n" % n for n in range(100_000))
    failure = b"2024-05-01T10:00:01.0000000Z src/a.ts(3,20): error TS2339: Property 'b' does not exist.\n"
    status, out, _ = run_stdin(noise + failure, "--json", "--read-limit", "64KiB", "-")
    assert status == 0
    record = json.loads(out)
    assert record["category"] == "typecheck"
    assert record["bytes_read"] == 64 * 1024 and record["truncated"]


def test_standard_input_can_be_named_only_once() -> None:
    status, _, err = run_stdin(b"x\n", "-", "-")
    assert status == 2 and "only once" in err


def test_an_empty_pipe_is_reported() -> None:
    status, out, err = run_stdin(b"", "-")
    assert (status, out) == (1, "")
    assert err == "healer diagnose: <stdin>: is empty\n"


def test_the_decisive_lines_are_marked_and_the_rule_is_explained() -> None:
    status, out, _ = run(str(HELDOUT / "b10-maven-nexus-staging.log"))
    assert status == 0
    assert "  why:       The repository manager refused to close the staging repository" in out
    marked = [line for line in out.splitlines() if line.startswith("  > | ")]
    assert any("Rule failure while trying to close staging repository" in line for line in marked)
    assert all(
        line.startswith(("  > | ", "    | "))
        for line in out.splitlines()[out.splitlines().index("  excerpt (> marks the decisive lines):") + 1 :]
    )


def test_a_multi_job_capture_reports_each_job_the_first_real_failure_first() -> None:
    data = (HELDOUT / "b11-gh-failfast.log").read_bytes()
    status, out, _ = run_stdin(data, "--json", "-")
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["job"], r["category"]) for r in records] == [
        ("test (3.12)", "test"),
        ("test (3.11)", "cancelled"),
        ("test (3.13)", "cancelled"),
    ]


def test_the_read_limit_bounds_how_far_back_a_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    path.write_bytes((HELDOUT / "b10-pytest-long-rA.log").read_bytes())
    status, out, _ = run("--json", str(path))
    record = json.loads(out)
    assert record["bytes_read"] == path.stat().st_size
    assert any("RuntimeError: report backend unavailable" in line for line in record["excerpt"])
    status, out, _ = run("--json", "--read-limit", "256KiB", str(path))
    record = json.loads(out)
    assert record["bytes_read"] == 256 * 1024
    assert not any("RuntimeError: report backend unavailable" in line for line in record["excerpt"])


@pytest.mark.parametrize("size", ["0", "-1", "lots", "4XB"])
def test_a_bad_read_limit_is_refused(size: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run("--read-limit", size, "x.log")
    assert "not a positive number of bytes" in capsys.readouterr().err


NPM_PEERS_LOG = "".join(
    f"2026-01-01T00:00:00.0000000Z {line}\n"
    for line in (
        "##[group]Run npm ci",
        "npm ci",
        "##[endgroup]",
        "npm error code ERESOLVE",
        "npm error ERESOLVE could not resolve",
        "npm error Could not resolve dependency:",
        'npm error peer react@"^19.0.0" from react-dom@19.0.0',
        "##[error]Process completed with exit code 1.",
    )
)


@pytest.mark.parametrize(
    ("files", "owner", "action"),
    [
        ("src/App.tsx\n\nREADME.md\n", "upstream", "escalate"),  # no file the install reads: upstream's
        ("src/App.tsx\npackage.json\n", "code", "agent"),  # the pull request changed the manifest
    ],
)
def test_the_changed_files_say_whose_a_failed_install_is_as_the_action_reads_them(
    tmp_path: Path, files: str, owner: str, action: str
) -> None:
    log, changed = tmp_path / "install.log", tmp_path / "changed.txt"
    log.write_text(NPM_PEERS_LOG)
    changed.write_text(files)
    status, out, err = run("--json", "--changed", str(changed), str(log))
    record = json.loads(out)
    assert (status, err, record["owner"], record["action"]) == (0, "", owner, action)
    assert ("changes" in record["decided_by"]) is (owner == "upstream")
    status, out, _ = run("--json", str(log))  # without the list, the log alone: the code's
    assert (status, json.loads(out)["owner"]) == (0, "code")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "No such file"),
        (b"\xff\xfe not text", "codec can't decode"),
        (b"a.py\n" * 3001, "3001 paths"),
    ],
)
def test_a_changed_files_list_that_cannot_be_read_is_one_line(
    tmp_path: Path, content: bytes | None, said: str
) -> None:
    log, changed = tmp_path / "install.log", tmp_path / "changed.txt"
    log.write_text(NPM_PEERS_LOG)
    if content is not None:
        changed.write_bytes(content)
    status, out, err = run("--changed", str(changed), str(log))
    assert (status, out) == (2, "")
    assert err.startswith("healer diagnose: --changed ") and said in err and err.count("\n") == 1
