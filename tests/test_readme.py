"""The inputs tables (all of them in docs/inputs.md, the few most callers set in the README) and the
config-file example in docs/configuration.md are the real ones."""

import re
from pathlib import Path

from healer.config import INPUTS, Config, load_config_file
from healer.diagnosis.rules import load_rules

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
INPUTS_PAGE = (ROOT / "docs" / "inputs.md").read_text(encoding="utf-8")
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| `([a-z-]+)` \| ([^|]*) \|", re.MULTILINE)
# what a typical caller sets: the README's table holds no more
MOST_SET = 5


def _default(name: str) -> str:
    spec = next(s for s in INPUTS if s.name == name)
    return f"`{spec.default}`" if spec.default else ""


def test_the_inputs_page_lists_every_input_once_with_its_default():
    section = INPUTS_PAGE.split("\n## Inputs", 1)[1].split("\n## ", 1)[0]
    rows = ROW.findall(section)
    names = [name for name, _ in rows]
    assert sorted(names) == sorted(spec.name for spec in INPUTS), "each input once, in one of the groups"
    for name, default in rows:
        assert default.strip() == _default(name), name
    # each group is a table under its own heading
    assert section.count("\n### ") >= 5


def test_the_readme_shows_the_few_inputs_most_callers_set():
    section = README.split("## Configure it", 1)[1].split("\n## ", 1)[0]
    rows = ROW.findall(section)
    assert 0 < len(rows) <= MOST_SET
    known = {spec.name for spec in INPUTS}
    for name, default in rows:
        assert name in known, f"{name} is no input of the action"
        assert default.strip() == _default(name), name
        # the same line as on the inputs page, so the two cannot drift apart
        line = re.search(rf"^\| `{name}` \|.*$", section, re.MULTILINE).group(0)
        page_line = re.search(rf"^\| `{name}` \|.*$", INPUTS_PAGE, re.MULTILINE).group(0)
        assert line.replace("](docs/", "](") == page_line, name
    assert "(docs/inputs.md)" in section


def test_the_count_of_inputs_the_pages_give_is_the_real_one():
    for text in (README, INPUTS_PAGE):
        counts = {int(n) for n in re.findall(r"\b(\d+) inputs\b", text)}
        assert counts <= {len(INPUTS)}, counts


def test_the_config_file_example_loads():
    block = re.search(r"## The config file.*?```yaml\n(.*?)```", CONFIGURATION, re.DOTALL)
    assert block, "docs/configuration.md has no config-file example"
    config = load_config_file(block.group(1), Config(), source=".github/ci-healer.yml")
    assert config.max_attempts == 2 and config.rules
    load_rules(config.rules, source=".github/ci-healer.yml")
