"""The container engine's refusals of a GPU container that kdiag used to call healthy: Docker's "Error response
from daemon: ..." for a runtime it does not know, and runc's "error during container init: error running hook
#1: ..." when NVIDIA's hook is configured and not installed (diagnose/data/catalogue/docker-gpus.yaml, and the
failure-line shapes of the docker CLI and runc); and libnvidia-container's refusals of an image that carries the
driver's files and of a GPU the host does not have (libnvidia-container.yaml).

The wordings are the tools' own (moby's daemon and client, runc's libcontainer), as users pasted them in public
notes and reports; the look-alikes are lines that name the same things without a failure."""

from __future__ import annotations

import pytest

from diagnose.failure_lines import is_failure_line
from tests.core.corpus_logs import verdict


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # moby's getRuntime error through the docker CLI, as pasted in public setup notes
        (
            "Error response from daemon: unknown or invalid runtime name: nvidia\n",
            "docker-nvidia-runtime-not-registered",
        ),
        # runc's hook error with the toolkit's hook path, as pasted in a public setup guide (its "error2." label kept)
        (
            "error2.error during container init: error running hook #1: fork/exec "
            "/usr/bin/nvidia-container-runtime-hook: no such file or directory: unknown\n",
            "container-nvidia-hook-not-installed",
        ),
        # libnvidia-container's mount stage, as pasted in public troubleshooting notes
        (
            "nvidia-container-cli: mount error: file creation failed: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: "
            "file exists\n",
            "container-cli-driver-file-already-in-image",
        ),
        # libnvidia-container's device stage: an index and a UUID the host does not have (public notes)
        ("nvidia-container-cli: device error: 1: unknown device\n", "container-cli-unknown-device"),
        ("nvidia-container-cli: device error: GPU-1: unknown device\n", "container-cli-unknown-device"),
    ],
)
def test_container_refusals_are_the_machines(text: str, rule: str) -> None:
    assert verdict(text) == ("diagnosed", "environment", rule)


@pytest.mark.parametrize(
    "line",
    [
        # moby client: the CLI's prefix of any daemon error
        "docker: Error response from daemon: No such container: kdiag-test.",
        "Error response from daemon: unknown or invalid runtime name: runsc",
        # runc libcontainer's wrappers of a failed start
        "error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: x",
        "OCI runtime create failed: runc create failed: unable to start container process: error running prestart hook #0: exit status 1",
    ],
)
def test_engine_and_runc_failures_are_failure_lines(line: str) -> None:
    assert is_failure_line(line)


def test_a_runtime_other_than_nvidias_is_not_the_toolkits() -> None:
    status, _, rule = verdict("Error response from daemon: unknown or invalid runtime name: runsc\n")
    assert status != "no-failure" and rule != "docker-nvidia-runtime-not-registered"


@pytest.mark.parametrize(
    "line",
    [
        "Runtimes: io.containerd.runc.v2 nvidia runc",
        "Default Runtime: runc",
        "  hooks: prestart: /usr/bin/nvidia-container-runtime-hook",
        "INFO[0000] error during container init is retried by the shim",
    ],
)
def test_look_alikes_stay_silent(line: str) -> None:
    assert not is_failure_line(line)
