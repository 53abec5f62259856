"""The second looks: what the failing step's lines, the steps before it and the whole log say after the
reading and the owner table have spoken, each able to give the failure to another owner.

In order: the step's own word (:mod:`~healer.diagnosis.steplines`), a secret the job had empty
(:mod:`~healer.diagnosis.emptysecret`), a run on the base branch (:mod:`~healer.diagnosis.basecheck`), an
apt index never fetched (:mod:`~healer.diagnosis.aptindex`), a refusal at a port no service container
publishes (:mod:`~healer.diagnosis.serviceports`), a lint new in the installed toolchain
(:mod:`~healer.diagnosis.newlint`), a new major the step asked for by name
(:mod:`~healer.diagnosis.askedmajor`), a self-hosted machine (:mod:`~healer.diagnosis.selfhosted`), a tool the
hosted image stopped shipping (:mod:`~healer.diagnosis.hostedimage`), a
dependency bot's own bump (:mod:`~healer.diagnosis.botbump`), a test that passed when run again
(:mod:`~healer.diagnosis.flakyrun`), tests stopped only by a name a new major release removed
(:mod:`~healer.diagnosis.removedname`), an installed package importing a module the job's Python removed
(:mod:`~healer.diagnosis.removedstdlib`), a pull request the job itself lists as changing only prose
(:mod:`~healer.diagnosis.docsonly`), a Terraform lock left behind (:mod:`~healer.diagnosis.statelock`),
and a pre-release of the toolchain or a dependency (:mod:`~healer.diagnosis.prerelease`).

Pure: a diagnosis and the log's lines in, a diagnosis out.
"""

from __future__ import annotations

from collections.abc import Sequence

from healer.diagnosis.aptindex import index_never_fetched
from healer.diagnosis.askedmajor import asked_for_the_major
from healer.diagnosis.basecheck import failed_on_the_base
from healer.diagnosis.botbump import the_bumps_own
from healer.diagnosis.docsonly import prose_only_in_the_log
from healer.diagnosis.emptysecret import without_its_secrets
from healer.diagnosis.flakyrun import passed_when_run_again
from healer.diagnosis.hostedimage import dropped_by_the_image
from healer.diagnosis.newlint import new_in_this_toolchain
from healer.diagnosis.prerelease import upstream_when_unreleased
from healer.diagnosis.removedname import removed_by_a_new_major
from healer.diagnosis.removedstdlib import removed_under_a_release
from healer.diagnosis.selfhosted import on_its_own_machine
from healer.diagnosis.serviceports import refused_where_no_service_listens
from healer.diagnosis.statelock import stale_lock
from healer.diagnosis.steplines import on_the_steps_word
from healer.model import Diagnosis


def second_looks(
    owned: Diagnosis,
    *,
    every: Sequence[str],
    header: Sequence[str],
    lines: Sequence[str],
    earlier: Sequence[str],
    step_end: int,
    names: tuple[str | None, ...],
    ended_at: str | None = None,
) -> Diagnosis:
    """``owned`` after each second look: ``every`` line of the log, the failing step's ``header`` and output
    ``lines``, the log's lines ``earlier`` than the step, the index where the step's output ends
    (``step_end``), the job's, workflow's and step's ``names``, and when the job ended (``ended_at``)."""
    said = without_its_secrets(on_the_steps_word(owned, lines, header), header, lines, every)
    said = index_never_fetched(failed_on_the_base(said, header, lines, earlier), lines, earlier)
    said = refused_where_no_service_listens(said, lines, earlier)
    said = asked_for_the_major(new_in_this_toolchain(said, lines, earlier), header)
    said = dropped_by_the_image(on_its_own_machine(said, every), every)
    said = removed_by_a_new_major(the_bumps_own(said, every, lines), lines, every)
    said = removed_under_a_release(said, lines, every)
    said = prose_only_in_the_log(passed_when_run_again(said, every, step_end), every, lines)
    said = stale_lock(said, lines, ended_at)
    return upstream_when_unreleased(said, every, names=names)
