"""The token's hand-over, its base64 forms and the one scrubbing function."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from healer.text.tokens import contains, forms, receive, scrub

TOKEN = "ghs_ScrubMe0123456789abcdefghijklmnopqrst"


@pytest.mark.parametrize("prefix", ["", "x", "xy", "x-access-token:", "user:", "ab:"])
def test_the_token_is_scrubbed_from_any_base64_text_that_encodes_it(prefix: str) -> None:
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        header = encode(f"{prefix}{TOKEN}\n".encode()).decode()
        text = f"Authorization: basic {header} and {TOKEN}"
        cleaned = scrub(text, TOKEN)
        assert TOKEN not in cleaned
        assert contains(text, TOKEN)
        assert not contains(cleaned, TOKEN)
        # what is left cannot be decoded back to the token
        assert TOKEN.encode()[:12] not in base64.b64decode(cleaned.split()[2].split("*")[0] + "==")


def test_scrub_leaves_other_text_alone_and_an_empty_token_changes_nothing() -> None:
    assert scrub("nothing secret here", TOKEN) == "nothing secret here"
    assert scrub(f"{TOKEN}", "") == TOKEN
    assert forms("") == ()
    assert TOKEN in forms(TOKEN)


def test_the_token_file_is_read_and_deleted(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN)
    env = receive({"HEALER_GITHUB_TOKEN_FILE": str(path), "PATH": "/bin"})
    assert env == {"HEALER_GITHUB_TOKEN": TOKEN, "PATH": "/bin"}
    assert not path.exists()


def test_a_token_in_the_environment_leaves_the_process_environment(tmp_path: Path) -> None:
    # The child re-executes itself with the token on a pipe: its /proc/self/environ no longer holds it.
    code = (
        "import sys; from healer.text.tokens import receive, protect_process\n"
        "import os\n"
        "env = receive(os.environ, reexec=True)\n"
        "print(env['HEALER_GITHUB_TOKEN'] == sys.argv[1])\n"
        "print(sys.argv[1].encode() in open('/proc/self/environ', 'rb').read())\n"
        "print(protect_process())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, TOKEN],
        env={**os.environ, "HEALER_GITHUB_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        check=False,
    )
    if not Path("/proc/self/environ").exists():
        pytest.skip("no /proc here")
    assert done.stdout.split() == ["True", "False", "True"], done.stderr
