import subprocess
import sys

import pytest

from healer.cli import COMMANDS, build_parser, main


def test_every_command_registers_itself():
    parser = build_parser()
    for name in COMMANDS:
        args = parser.parse_args([name, "x.log"] if name == "diagnose" else [name])
        assert args.command == name and callable(args.func)


def test_no_command_prints_help_and_exits_2(capsys):
    assert main(["healer"]) == 2
    assert "diagnose" in capsys.readouterr().out


def test_an_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["healer", "heal-everything"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_diagnose_does_not_load_the_github_client():
    probe = (
        "import sys; from healer.cli import build_parser; build_parser('diagnose'); "
        "print('healer.github' in sys.modules, 'github' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_closed_pipe_ends_diagnose_quietly(tmp_path):
    log = tmp_path / "ci.log"
    log.write_text("".join(f"FAILED tests/test_{i}.py::test_x - assert 1 == 2\n" for i in range(2000)))
    reader = subprocess.Popen(["head", "-n", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    diagnose = subprocess.run(
        # far more output than a pipe buffers, so the writer meets the closed pipe
        [sys.executable, "-m", "healer", "diagnose", *[str(log)] * 200],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    reader.stdin.close()
    reader.wait()
    assert "Traceback" not in diagnose.stderr
    assert "BrokenPipeError" not in diagnose.stderr
