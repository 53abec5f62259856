"""The shell: argv and environment in, exit code out.

Each subcommand lives in its own module, which exposes ``register(subparsers)``; the parser it adds sets
``func(args, env) -> int``. This module only parses arguments and dispatches.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from healer import __version__

# subcommand → the module that registers it. Only the chosen command's module is imported, so
# `healer diagnose` does not pay for the GitHub client and `healer run` does not load the demo.
COMMANDS: dict[str, str] = {
    "run": "healer.run.app",
    "diagnose": "healer.diagnosis.diagnose",
    "demo": "healer.demo",
    "report": "healer.run.report_command",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that subcommand is registered (imported)."""
    parser = argparse.ArgumentParser(prog="healer", description="Heal a pull request's failing CI.")
    parser.add_argument("--version", action="version", version=f"ci-healer {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(module).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv if argv is None else argv)[1:]
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS else None)
    args = parser.parse_args(args_list)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args, os.environ))
    except BrokenPipeError:
        # The reader went away (`healer diagnose … | head`): stop quietly, as other command-line tools do.
        # Python would report the broken pipe again when it flushes stdout at exit; point stdout elsewhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
