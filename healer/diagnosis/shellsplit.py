"""A shell line cut into its simple commands, each as its words, as the tables read a step's script.

Pure and bounded: never raises, reads at most :data:`MAX_COMMAND_CHARS` of a line and :data:`MAX_WORDS`
words of a command.
"""

from __future__ import annotations

import re
import shlex

MAX_COMMAND_CHARS = 4000
MAX_WORDS = 40
# what joins simple commands, outside quotes
_JOINERS = re.compile(r"&&|\|\||;|\||\n")
# words that open a compound command's part (``if …; then make; else …``): the command follows them
_KEYWORDS = frozenset({"then", "do", "else", "elif", "fi", "done", "{", "}", "(", ")"})
# a variable assigned a command's output (``changed=$(git diff --shortstat …)``, the Bash manual's "Command
# Substitution"): the command is what follows ``$(``
_ASSIGNED_OUTPUT = re.compile(r"^[A-Za-z_]\w*=\$\((?P<first>.*)$")


def split_commands(command: str) -> list[list[str]]:
    """The simple commands of a shell line, each as its words (bounded; never raises)."""
    out: list[list[str]] = []
    for part in _split_outside_quotes(command[:MAX_COMMAND_CHARS]):
        part = part.strip()
        if not part:
            continue
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        while words and words[0] in _KEYWORDS:
            words = words[1:]
        if words and (assigned := _ASSIGNED_OUTPUT.match(words[0])):
            words = [assigned["first"], *words[1:]] if assigned["first"] else words[1:]
            if words and words[-1].endswith(")"):
                words[-1] = words[-1][:-1]
            words = [word for word in words if word]
        if words:
            out.append(words[:MAX_WORDS])
    return out


def _split_outside_quotes(text: str) -> list[str]:
    """``text`` cut at ``&&``, ``||``, ``;``, ``|`` and new lines that are not inside quotes nor inside a
    ``[[ … ]]`` test, where bash reads ``&&`` and ``||`` as the test's own operators and ``|`` as part of a
    ``=~`` pattern (the Bash manual, "Conditional Constructs")."""
    parts: list[str] = []
    quote = ""
    in_test = False
    start = 0
    at = 0
    while at < len(text):
        char = text[at]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                at += 1
        elif char in "'\"":
            quote = char
        elif char == "\\":
            at += 1
        elif in_test:
            in_test = not _at_word(text, at, "]]")
        elif _at_word(text, at, "[["):
            in_test = True
        else:
            joiner = _JOINERS.match(text, at)
            if joiner:
                parts.append(text[start:at])
                start = at = joiner.end()
                continue
        at += 1
    parts.append(text[start:])
    return parts


def _at_word(text: str, at: int, word: str) -> bool:
    """Whether ``word`` stands alone at ``text[at:]`` (between the line's ends, blanks or separators)."""
    end = at + len(word)
    return (
        text.startswith(word, at)
        and (at == 0 or text[at - 1] in " \t\n;&|(!")
        and (end == len(text) or text[end] in " \t\n;&|)")
    )
