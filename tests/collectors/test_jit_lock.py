"""A JIT extension load waiting on its build lock (diagnose.collectors.jit_lock), and the answer it gives."""

from __future__ import annotations

import doctest

from diagnose.classify import classify_record
from diagnose.collectors import jit_lock
from diagnose.inputs import InputRecord
from diagnose.matcher import Diagnosis, Matcher
from diagnose.rules import default_rules
from tests.core.corpus_logs import corpus_log

# OpenRLHF/OpenRLHF#208: every rank prints the loader's root line, then nothing
RANKS_STOP = corpus_log("holdout22", "h22a-openrlhf-torch-extensions-cache-hang")
# captured here: torch 2.13.0 (CPU), load_inline(name="kdiag_noop", verbose=True), the loader's logger at DEBUG
BUILT = (
    "Using /tmp/torch_ext as PyTorch extensions root...\n"
    "Emitting ninja build file /tmp/torch_ext/kdiag_noop/build.ninja...\n"
    "Building extension module kdiag_noop...\n"
    "Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)\n"
    "ninja: no work to do.\n"
    "Loading extension module kdiag_noop...\n"
)


def diagnose_text(text: str) -> Diagnosis:
    d = classify_record(InputRecord(id="t", text=text), Matcher(default_rules())).diagnosis
    assert d is not None
    return d


def test_the_module_examples() -> None:
    assert doctest.testmod(jit_lock).failed == 0


def test_a_log_that_stops_at_the_root_line_waits_on_the_lock() -> None:
    assert jit_lock.wait_at(RANKS_STOP) == ".cache/torch_extensions/py310_cu118"
    d = diagnose_text(RANKS_STOP)
    assert (d.category, d.failure_mode, d.rule) == (
        "environment",
        "stale-compile-cache",
        "torch-ext-jit-build-lock-wait",
    )


def test_a_load_that_builds_or_loads_does_not_wait() -> None:
    assert jit_lock.wait_at(BUILT) is None
    # the process that holds the lock and builds: its next lines follow the root line
    assert jit_lock.wait_at("\n".join(BUILT.splitlines()[:3])) is None
