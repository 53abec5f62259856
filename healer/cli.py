"""The shell: argv and environment in, exit code out.

Each subcommand lives in its own module, which exposes ``register(subparsers)``; the parser it adds sets
``func(args, env) -> int``. This module only parses arguments and dispatches.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from healer import __version__, app, demo, diagnose


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="healer", description="Heal a pull request's failing CI.")
    parser.add_argument("--version", action="version", version=f"ci-healer {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    # One line per subcommand module (each exposes ``register(subparsers)``):
    app.register(subparsers)
    diagnose.register(subparsers)
    demo.register(subparsers)
    del subparsers
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv if argv is None else argv)[1:]
    parser = build_parser()
    args = parser.parse_args(args_list)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    return int(args.func(args, os.environ))
