"""``healer demo`` and the pieces it is built from, which the end-to-end tests reuse.

* :mod:`healer.demo.standin` — a stateful GitHub REST stand-in on 127.0.0.1 (standard library only);
* :mod:`healer.demo.sandbox` — a bare ``origin``, the workflow's checkout, the Actions environment, and
  ``healer run`` as a child process;
* :mod:`healer.demo.sample` — the sample project, runner-shaped job logs and ``workflow_run`` payloads;
* :mod:`healer.demo.agent` and :mod:`healer.demo.lint` — a deterministic sample agent and the checker the
demo's
  CI runs.
"""

from __future__ import annotations

from typing import Any


def register(subparsers: Any) -> None:
    """Add ``healer demo`` to the command line (the module is imported only when the CLI is built)."""
    from healer.demo.command import register as register_demo

    register_demo(subparsers)
