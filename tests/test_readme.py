"""The README's inputs table and the config-file example in docs/configuration.md are the real ones."""

import re
from pathlib import Path

from healer.config import INPUTS, Config, load_config_file
from healer.diagnosis.rules import load_rules

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def test_the_inputs_table_lists_every_input_with_its_default():
    inputs = README.split("## Inputs", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| ([^|]*) \|", inputs, re.MULTILINE))
    for spec in INPUTS:
        assert spec.name in rows, f"input {spec.name} is missing from the README"
        assert rows[spec.name].strip() == (f"`{spec.default}`" if spec.default else ""), spec.name


def test_the_config_file_example_loads():
    block = re.search(r"## The config file.*?```yaml\n(.*?)```", CONFIGURATION, re.DOTALL)
    assert block, "docs/configuration.md has no config-file example"
    config = load_config_file(block.group(1), Config(), source=".github/ci-healer.yml")
    assert config.max_attempts == 2 and config.rules
    load_rules(config.rules, source=".github/ci-healer.yml")
