"""The fake repository the client's tests talk to through ``responses``, and the fixtures' shared values."""

from __future__ import annotations

TOKEN = "ghs_secretTOKENvalue0123456789abcdefABCD"  # noqa: S105 - a fake, must never show up anywhere
API = "https://api.github.com"
REPO = "octo-org/octo-repo"
BASE = f"{API}/repos/{REPO}"
SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"  # the head of the pulls/get example
