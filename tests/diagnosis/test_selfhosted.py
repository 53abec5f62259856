"""The machine's own state on a self-hosted runner is the repository's to repair; on a GitHub-hosted runner,
or for an event such as a lost runner, it stays a re-run."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, stamped

from healer.diagnosis.selfhosted import self_hosted_runner
from healer.model import Action, Owner

SELF_HOSTED = [
    "Current runner version: '2.330.0'",
    "Runner name: 'build-07'",
    "Runner group name: 'Default'",
    "Machine name: 'build-07'",
]
HOSTED = [
    "Current runner version: '2.330.0'",
    "##[group]Runner Image Provisioner",
    "Hosted Compute Agent",
    "##[endgroup]",
]


def diagnose(setup: list[str], output: list[str]):  # noqa: ANN201
    lines = [*setup, "Complete job name: nightly", "##[group]Run make nightly", "make nightly"]
    lines += ["shell: /usr/bin/bash -e {0}", "##[endgroup]", *output]
    lines += ["##[error]Process completed with exit code 2.", "Post job cleanup."]
    return diagnose_log(stamped(lines), job="nightly")


DISK_FULL = [
    "cp: error writing 'build/out/app.img': No space left on device",
    "make: *** [Makefile:9: img] Error 1",
]


def test_a_full_disk_on_a_self_hosted_runner_goes_to_its_keepers() -> None:
    diagnosis = diagnose(SELF_HOSTED, DISK_FULL)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "build-07" in dict(diagnosis.decided_by)["evidence"]


def test_a_full_disk_on_a_hosted_runner_is_re_run() -> None:
    assert diagnose(HOSTED, DISK_FULL).action is Action.RERUN


def test_a_lost_self_hosted_runner_is_an_event_and_is_re_run() -> None:
    lost = ["##[error]The self-hosted runner: build-07 lost communication with the server."]
    assert diagnose(SELF_HOSTED, lost).owner is not Owner.REPOSITORY


def test_the_runner_is_read_from_the_set_up_section_only() -> None:
    assert self_hosted_runner(SELF_HOSTED) == "build-07"
    assert self_hosted_runner(HOSTED) is None
    assert self_hosted_runner(["Runner name: 'GitHub Actions 12'"]) is None
    # a step that prints the words is a step's output, not the set-up
    assert self_hosted_runner([*HOSTED, "##[group]Run echo", "Runner name: 'x'"]) is None


def test_a_job_that_asked_for_the_self_hosted_label_ran_on_a_self_hosted_runner() -> None:
    asked = [
        "Requested labels: self-hosted, linux, x64",
        "Job defined at: o/r/.github/workflows/ci.yml@refs/heads/x",
    ]
    assert self_hosted_runner(asked) == "requested labels: self-hosted, linux, x64"
    assert self_hosted_runner(["Requested labels: ubuntu-latest", *HOSTED]) is None
    diagnosis = diagnose(asked, DISK_FULL)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_log_without_its_set_up_shows_a_self_hosted_runner_by_its_folders() -> None:
    """GitHub's set-up instructions install a self-hosted runner in `actions-runner`, working in `_work`;
    a hosted runner works in /home/runner/work."""
    full = [
        "##[error]System.IO.IOException: No space left on device : "
        "'/home/ci/actions-runner/_diag/Worker_20261202-085632-utc.log'"
    ]
    diagnosis = diagnose([], full)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "/actions-runner/_diag/" in dict(diagnosis.decided_by)["evidence"]
    hosted = ["cp: error writing '/home/runner/work/app/app/build/x.img': No space left on device"]
    assert diagnose([], hosted).action is Action.RERUN


def test_a_program_make_cannot_find_on_a_self_hosted_runner_goes_to_its_keepers() -> None:
    missing = [
        "nvcc -O3 -arch=sm_86 -c reduce.cu -o build/reduce.o",
        "make: nvcc: No such file or directory",
        "make: *** [Makefile:22: build/reduce.o] Error 127",
    ]
    diagnosis = diagnose(SELF_HOSTED, missing)
    assert (diagnosis.owner, diagnosis.action, diagnosis.rule) == (
        Owner.REPOSITORY,
        Action.ESCALATE,
        "config.command-not-found",
    )
    # a source file make cannot find is the code's, not a missing program
    source = ["make: *** No rule to make target 'src/reduce.cu', needed by 'build/reduce.o'.  Stop."]
    assert diagnose(SELF_HOSTED, source).owner is not Owner.REPOSITORY


def test_a_system_package_cmake_cannot_find_on_a_self_hosted_runner_goes_to_its_keepers() -> None:
    missing = [
        "-- Checking for module 'gstreamer-1.0'",
        "--   No package 'gstreamer-1.0' found",
        "CMake Error at /usr/share/cmake-3.28/Modules/FindPkgConfig.cmake:634 (message):",
        "  The following required packages were not found:",
        "-- Configuring incomplete, errors occurred!",
    ]
    diagnosis = diagnose(SELF_HOSTED, missing)
    assert (diagnosis.owner, diagnosis.action, diagnosis.rule) == (
        Owner.REPOSITORY,
        Action.ESCALATE,
        "cpp.cmake-dependency",
    )
    # on a hosted runner the workflow installs what the build needs: not the machine's keepers'
    assert diagnose(HOSTED, missing).owner is not Owner.REPOSITORY


def test_a_docker_socket_the_job_may_not_use_goes_to_the_runners_keepers() -> None:
    denied = [
        "ERROR: permission denied while trying to connect to the Docker daemon socket at "
        'unix:///var/run/docker.sock: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.47/info": dial unix '
        "/var/run/docker.sock: connect: permission denied"
    ]
    # a hosted runner's user is in the docker group: whatever the log says of the machine, it is one the
    # repository's keepers set up, and a re-run meets the same socket
    for runner in (SELF_HOSTED, HOSTED):
        diagnosis = diagnose(runner, denied)
        assert (diagnosis.owner, diagnosis.action, diagnosis.rule) == (
            Owner.REPOSITORY,
            Action.ESCALATE,
            "config.docker-socket-permission",
        )


@pytest.mark.parametrize(
    ("stopped", "rule"),
    [
        pytest.param(
            [
                "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon"
                " running?"
            ],
            "runner.docker-unavailable",
            id="docker",
        ),
        pytest.param(
            [
                "building '/nix/store/2l1m0q-relay-0.4.0.drv'...",
                "       error: cannot connect to socket at '/nix/var/nix/daemon-socket/socket': Connection"
                " refused",
            ],
            "nix.daemon-unavailable",
            id="nix",
        ),
    ],
)
def test_a_daemon_that_is_not_running_on_a_self_hosted_runner_goes_to_its_keepers(
    stopped: list[str], rule: str
) -> None:
    diagnosis = diagnose(SELF_HOSTED, stopped)
    assert (diagnosis.owner, diagnosis.action, diagnosis.rule) == (Owner.REPOSITORY, Action.ESCALATE, rule)
    # a hosted machine is replaced after the job: re-run
    on_hosted = diagnose(HOSTED, stopped)
    assert (on_hosted.owner, on_hosted.action) == (Owner.PLATFORM, Action.RERUN)


def test_docker_without_the_gpu_runtime_on_a_self_hosted_runner_goes_to_its_keepers() -> None:
    no_runtime = [
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
        "Run 'docker run --help' for more information",
    ]
    diagnosis = diagnose(SELF_HOSTED, no_runtime)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    # on a hosted machine the same answer is the machine's, for the run after it
    assert diagnose(HOSTED, no_runtime).action is Action.RERUN


def test_a_docker_cli_plugin_the_self_hosted_machine_lacks_goes_to_its_keepers() -> None:
    missing = ["docker: 'buildx' is not a docker command.", "See 'docker --help'"]
    diagnosis = diagnose(SELF_HOSTED, missing)
    assert (diagnosis.owner, diagnosis.action, diagnosis.rule) == (
        Owner.REPOSITORY,
        Action.ESCALATE,
        "config.command-not-found",
    )
