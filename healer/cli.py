"""The shell: argv and environment in, exit code out.

Subcommands register themselves in ``COMMANDS``; each takes (args, env) and returns an exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from healer import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="healer", description="Heal a pull request's failing CI.")
    parser.add_argument("--version", action="version", version=f"ci-healer {__version__}")
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv if argv is None else argv)[1:]
    parser = build_parser()
    args = parser.parse_args(args_list)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    return int(args.func(args, os.environ))
