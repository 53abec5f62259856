"""The diagnosis on real Travis logs whose failure chunk people labelled (LogChunks' development set).

The corpus is read in place from the sibling ``shared/`` folder (``../shared/corpus/logchunks-dev`` from the
project's root; its README says how to read labels); the test is skipped when it is not there. To stay fast
it measures the logs of at most 100 kB (about half of them, from most of the repositories); the thresholds
sit just under what was measured on them, so a regression fails. ``benchmarks/bench_logchunks.py`` measures
all of them, by language.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from healer.diagnosis.rules import load_rules

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "logchunks-dev"
MAX_LOG_BYTES = 100_000
# measured: touched 99.3 %, head 93.9 %, category 96.6 % (147 logs)
TOUCHED, HEAD, CATEGORY = 0.98, 0.93, 0.95

pytestmark = pytest.mark.skipif(not (CORPUS / "labels.json").is_file(), reason=f"no corpus at {CORPUS}")


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "bench_logchunks", ROOT / "benchmarks" / "bench_logchunks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_excerpt_touches_the_labelled_chunk_and_the_category_is_right() -> None:
    bench = _bench()
    labels = json.loads((CORPUS / "labels.json").read_text(encoding="utf-8"))
    rules = load_rules()
    results = [
        bench.measure_one(path, label, rules)
        for name, label in sorted(labels.items())
        if (path := CORPUS / "logs" / f"{name}.log").stat().st_size <= MAX_LOG_BYTES
    ]
    assert len(results) >= 100
    share = {
        flag: sum(bool(getattr(r, flag)) for r in results) / len(results)
        for flag in ("touched", "head", "category_ok")
    }
    misses = [r.name for r in results if not (r.touched and r.category_ok)]
    print(f"\n{share} on {len(results)} logs; misses: {misses}")
    assert share["touched"] >= TOUCHED
    assert share["head"] >= HEAD
    assert share["category_ok"] >= CATEGORY
    assert all(r.excerpt_bytes <= 8 * 1024 for r in results)
