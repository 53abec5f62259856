"""The deliver stage: what writes a heal's change to GitHub — a fix pull request, a push onto the PR branch, a
patch, a rule pull request — from a change the heal stage (:mod:`healer.heal`) made and judged.

Nothing here runs code from the pull request, and :mod:`healer.heal` and this package import each other
nowhere: both stand on :mod:`healer.change` (git, the guard, the heal's result and its bundle). The heal stage
writes to no GitHub endpoint, so it can run in a job that holds no write token (tests/test_layout.py).
"""
