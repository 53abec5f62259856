"""The README and the pages in docs/ hold together: every relative link reaches a file (and, into a Markdown
page, a heading), and every page in docs/ is linked from the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", ROOT / "SECURITY.md", *DOCS]
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"`[^`]*`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} +(.+?) *#* *$", re.MULTILINE)


def prose(text: str) -> str:
    """The text without code blocks and code spans, where a bracket is not a link."""
    return _CODE.sub("", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    return [target for target in _LINK.findall(prose(text)) if not re.match(r"[a-z]+:", target)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        pytest.param("Signed ledger (`ledger-key`)", "signed-ledger-ledger-key", id="code-and-brackets"),
        pytest.param(
            "Set-up: the project's dependencies", "set-up-the-projects-dependencies", id="punctuation"
        ),
        pytest.param("`healer diagnose`", "healer-diagnose", id="code-only"),
    ],
)
def test_slug_follows_githubs_anchors(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_links_skip_code_and_absolute_addresses() -> None:
    text = "[a](docs/a.md) `[b](b.md)` [c](https://example.com)\n```\n[d](d.md)\n```\n[e](#top)\n"
    assert links(text) == ["docs/a.md", "#top"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file_and_its_heading(page: Path) -> None:
    broken = []
    for target in links(page.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{target}: no such heading in {file.relative_to(ROOT).as_posix()}")
    assert not broken, broken


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = ROOT / "README.md"
    linked = {
        (ROOT / target.partition("#")[0]).resolve() for target in links(readme.read_text(encoding="utf-8"))
    }
    assert DOCS, "docs/ holds no page"
    missing = [page.relative_to(ROOT).as_posix() for page in DOCS if page.resolve() not in linked]
    assert not missing, f"not linked from the README: {missing}"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_every_docs_page_opens_with_a_title_and_an_introduction(page: Path) -> None:
    title, blank, intro, *_ = page.read_text(encoding="utf-8").split("\n")
    assert title.startswith("# ") and not blank and intro and not intro.startswith(("#", "|", "```", "-"))
