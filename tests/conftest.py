"""Settings of the whole suite.

Hypothesis runs without its per-example deadline: the suite runs on every core (``-n auto``) beside other
work, and a time limit per example would measure the machine, not the code (speed is measured in
benchmarks/)."""

from hypothesis import settings

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
