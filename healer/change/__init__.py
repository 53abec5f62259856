"""The change a heal makes, and what both stages do with it: the floor under the heal and deliver stages.

The git wrapper (``workspace``), the environment a child process may see (``environment``), the diff model
(``diff``), the guard that judges a change (``guard/``, with ``judge`` to judge a staged one), what a heal
receives and returns (``context``, ``outcomes``), and the heal bundle between the two jobs: its format and the
checks the deliver job makes of it (``bundle``), and the attempt's record in it (``bundling``).

Nothing here runs code from the pull request or writes to GitHub: :mod:`healer.heal` (which runs the pull
request's code, without the write token) and :mod:`healer.deliver` (which writes to GitHub, running none of
it) both stand on this package, and neither imports the other.
"""
