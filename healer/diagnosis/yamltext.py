"""YAML as the diagnosis reads its shipped tables and rule packs.

PyYAML's wheels carry libyaml's parser (``CSafeLoader``), which reads the same documents about ten times
faster than the pure-Python one; the packs and tables are read again by every ``healer`` process, so the
healer uses it where it is present and the pure-Python parser where it is not (a PyYAML built without
libyaml). Both construct with the safe constructor: plain data only."""

from __future__ import annotations

from typing import Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """The YAML document in ``text``, as ``yaml.safe_load`` reads it."""
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - the safe loader (C or pure Python)
