"""What the failing step's own lines say beyond its cause line, weighed after the owner table.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

from collections.abc import Sequence

from healer.diagnosis.depsources import only_in_dependencies, pinned_sdist_broke, withdrawn_release
from healer.diagnosis.flakyrun import flaky_in_the_log
from healer.diagnosis.ghcbase import base_outside_bounds
from healer.diagnosis.hungtest import hung_at_the_limit
from healer.diagnosis.linkfindings import checked_links
from healer.diagnosis.raised import (
    clash_between_installed,
    crashed_action,
    crashed_plugin,
    raised_by_the_checkout,
    syntax_of_another_node,
    syntax_of_another_python,
)
from healer.diagnosis.testcauses import failed_on_the_world
from healer.diagnosis.versionfile import version_from_the_tree
from healer.model import Diagnosis


def on_the_steps_word(
    diagnosis: Diagnosis, step_lines: Sequence[str], header: Sequence[str] = ()
) -> Diagnosis:
    """A test that passed and failed in the step on the same code is flaky
    (:func:`healer.diagnosis.flakyrun.flaky_in_the_log`); tests that all stopped on the network or on a
    credential are not the code's (:func:`healer.diagnosis.testcauses.failed_on_the_world`); a link checker's
    findings that are all a busy server are the platform's, one broken link the code's
    (:func:`healer.diagnosis.linkfindings.checked_links`); an exception a file of the checkout raised is the
    code's (:func:`healer.diagnosis.raised.raised_by_the_checkout`); an installed package importing a name
    another installed package lacks is upstream's
    (:func:`healer.diagnosis.raised.clash_between_installed`), and so are compiler and type-checker errors
    only in dependencies' own files (:func:`healer.diagnosis.depsources.only_in_dependencies`), and a pytest
    plugin that crashed pytest (:func:`healer.diagnosis.raised.crashed_plugin`), an action that crashed in its
    own code (:func:`healer.diagnosis.raised.crashed_action`), a release Python cannot parse here
    (:func:`healer.diagnosis.raised.syntax_of_another_python`) or Node.js cannot
    (:func:`healer.diagnosis.raised.syntax_of_another_node`), and a pinned dependency's
    source that today's build tools cannot build (:func:`healer.diagnosis.depsources.pinned_sdist_broke`),
    and a release its registry withdrew (:func:`healer.diagnosis.depsources.withdrawn_release`), and cabal's
    solver refusing the compiler's own base on a dependency's bounds
    (:func:`healer.diagnosis.ghcbase.base_outside_bounds`); a test the
    harness named as still running when the job's time limit came hangs in the code
    (:func:`healer.diagnosis.hungtest.hung_at_the_limit`); a toolchain version the set-up could not find in a
    file of the repository's tree is the code's (its ``header``, the step's inputs, says which file:
    :func:`healer.diagnosis.versionfile.version_from_the_tree`)."""
    lines = list(step_lines)
    said = failed_on_the_world(flaky_in_the_log(hung_at_the_limit(diagnosis, lines), lines), lines)
    said = clash_between_installed(raised_by_the_checkout(checked_links(said, lines), lines), lines)
    said = crashed_action(crashed_plugin(said, lines), lines)
    said = syntax_of_another_node(syntax_of_another_python(said, lines), lines)
    said = withdrawn_release(pinned_sdist_broke(only_in_dependencies(said, lines), lines), lines)
    said = base_outside_bounds(said, lines)
    return version_from_the_tree(said, header, lines)
