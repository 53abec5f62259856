"""The values of inputs and config-file keys: parsers from text to booleans, whole numbers, byte sizes,
choices, lists and event names, and :class:`ConfigError`, which names the input and says how to fix it.

Every parser takes the input's name (for the message) and the raw text, and returns the value or raises.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable


class ConfigError(Exception):
    """An input or config-file value is wrong; the message names it and says how to fix it."""


DELIVERIES = ("pull-request", "push", "comment", "none")
FORK_POLICIES = ("diagnose", "rules", "heal", "ignore")
STAGES = ("all", "heal", "deliver")
UNKNOWN_ACTIONS = ("agent", "escalate")


def boolean(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off", ""):
        return False
    raise ConfigError(f"input `{name}` must be true or false, not {raw!r}")


def whole_number(low: int, high: int) -> Callable[[str, str], int]:
    def parse(name: str, raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise ConfigError(
                f"input `{name}` must be a whole number from {low} to {high}, not {raw!r}"
            ) from None
        if not low <= value <= high:
            raise ConfigError(f"input `{name}` must be from {low} to {high}, not {value}")
        return value

    return parse


_SIZE_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def byte_size(low: int, high: int) -> Callable[[str, str], int]:
    """A number of bytes: plain (``4194304``) or with a binary unit (``512KiB``, ``8MiB``, ``1GiB``)."""

    def parse(name: str, raw: str) -> int:
        found = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", raw)
        unit = found.group(2).lower() if found else ""
        if found is None or unit not in _SIZE_UNITS:
            raise ConfigError(
                f"input `{name}` must be a number of bytes, plain or with KiB, MiB or GiB (e.g. `8MiB`), "
                f"not {raw!r}"
            )
        value = int(found.group(1)) * _SIZE_UNITS[unit]
        if not low <= value <= high:
            raise ConfigError(
                f"input `{name}` must be from {low // 1024} KiB to {high // 1024**2} MiB, not {raw.strip()!r}"
            )
        return value

    return parse


def choice(*choices: str) -> Callable[[str, str], str]:
    def parse(name: str, raw: str) -> str:
        value = raw.strip()
        if value not in choices:
            raise ConfigError(f"input `{name}` must be one of {', '.join(choices)}, not {raw!r}")
        return value

    return parse


def text(name: str, raw: str) -> str:
    return raw.strip()


def text_list(name: str, raw: str) -> tuple[str, ...]:
    """A list input: one item per line, or comma-separated."""
    items = raw.replace(",", "\n").splitlines()
    return tuple(item.strip() for item in items if item.strip())


_EVENT_NAME = re.compile(r"[a-z_]{1,64}")


def event_names(name: str, raw: str) -> tuple[str, ...]:
    """A list of GitHub event names (``pull_request``, ``push``, …)."""
    items = text_list(name, raw)
    for item in items:
        if not _EVENT_NAME.fullmatch(item):
            raise ConfigError(
                f"input `{name}` lists {item!r}, which is not an event name such as `pull_request` or `push`"
            )
    return items


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def api_url(name: str, raw: str) -> str:
    """A base URL the model key may be sent to: https (http only to a loopback address), no credentials,
    query or fragment; empty for the provider's own."""
    value = raw.strip()
    if not value:
        return ""
    parsed = urllib.parse.urlsplit(value)
    if parsed.scheme not in ("https", "http") or not parsed.hostname or parsed.query or parsed.fragment:
        raise ConfigError(
            f"input `{name}` must be an https URL such as `https://gateway.example`, not {raw!r}"
        )
    if parsed.scheme == "http" and parsed.hostname not in _LOOPBACK:
        raise ConfigError(
            f"input `{name}` must use https: the model key must not cross a network in clear text"
        )
    if parsed.username or parsed.password:
        raise ConfigError(f"input `{name}` must not hold credentials; pass the key as `agent-api-key`")
    return value


def days(low: int, high: int) -> Callable[[str, str], int]:
    """A number of days: ``30d`` or ``30``, or weeks ``4w``."""

    def parse(name: str, raw: str) -> int:
        found = re.fullmatch(r"\s*(\d+)\s*([dw]?)\s*", raw.lower())
        if found is None:
            raise ConfigError(
                f"input `{name}` must be a number of days such as `30d` (or weeks: `4w`), not {raw!r}"
            )
        value = int(found.group(1)) * (7 if found.group(2) == "w" else 1)
        if not low <= value <= high:
            raise ConfigError(f"input `{name}` must be from {low} to {high} days, not {raw.strip()!r}")
        return value

    return parse
