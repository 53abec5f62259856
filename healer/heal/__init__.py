"""The heal stage: what runs the pull request's code (the throwaway user, set-up, fix commands, the agent and
the model proxy that holds its keys, verification) and writes nothing to GitHub: its change goes to the
hand-over it is given. It stands on :mod:`healer.change` and imports nothing of :mod:`healer.deliver`
(tests/test_layout.py).
"""
