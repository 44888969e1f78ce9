"""diagnose.collectors.exit_status: real shell/Python captures (tests/fixtures/exit_status) and merge()."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.collectors.exit_status import merge, normalise_signal, parse
from diagnose.facts import ExitFacts
from tests.core.corpus_logs import classify_text, corpus_log

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "exit_status"
REAL_DEV = Path(__file__).resolve().parents[2] / "corpus" / "public" / "real-dev.yaml"


def load(stem: str) -> str:
    return (FIX / f"{stem}.log").read_text(encoding="utf-8")


def test_every_fixture_has_a_sidecar() -> None:
    for log in FIX.glob("*.log"):
        data = yaml.safe_load(log.with_name(log.stem + ".source.yaml").read_text())
        assert {"captured", "origin"} & set(data), log.name


# (fixture, code, signal, timed_out)
CAPTURED = [
    ("bash_segfault", 139, "SIGSEGV", False),
    ("bash_aborted", 134, "SIGABRT", False),
    ("bash_killed", None, "SIGKILL", False),
    ("faulthandler_segv", None, "SIGSEGV", False),
    ("calledprocess_abort", None, "SIGABRT", False),
    ("calledprocess_exit3", 3, None, False),
    ("timeout_expired", None, None, True),
]


@pytest.mark.parametrize(("stem", "code", "signal", "timed_out"), CAPTURED)
def test_real_captures(stem: str, code: int | None, signal: str | None, timed_out: bool) -> None:
    f = parse(load(stem))
    assert f is not None
    assert (f.code, f.signal, f.timed_out) == (code, signal, timed_out)
    assert not f.oom_killed


def test_core_dumped_real_dev() -> None:
    log = {c["id"]: c["log"] for c in yaml.safe_load(REAL_DEV.read_text())}["vina-cuda-grid-params-ima"]
    f = parse(log)
    assert f is not None and (f.signal, f.core_dumped) == ("SIGABRT", True)
    assert f.lines == (4,)


@pytest.mark.parametrize(
    ("line", "oom", "signal"),
    [
        # pcyin/tranX#41 (dmesg in the issue)
        ("[2059991.491542] Out of memory: Killed process 25315 (python3) total-vm:53312244", True, "SIGKILL"),
        # NervanaSystems/deepspeech#48 (older kernels)
        ("[3017506.733819] Out of memory: Kill process 25635 (python) score 974 or sacrifice child", True, "SIGKILL"),
        # divamgupta/deep-clustering-kingdra#2
        ("2020-11-24 20:22:28.106 /bin/bash: line 27: 318 Killed sh start.sh", False, "SIGKILL"),
    ],
)
def test_kills(line: str, oom: bool, signal: str) -> None:
    f = parse(line)
    assert f is not None and (f.oom_killed, f.signal) == (oom, signal)


@pytest.mark.parametrize(
    ("line", "code", "signal"),
    [
        ("worker exited with code -11", -11, "SIGSEGV"),
        ("Command '['python', 'k.py']' returned non-zero exit status -6.", -6, "SIGABRT"),
        ("exit code 137", 137, "SIGKILL"),
        # torch.distributed.elastic (the launcher's own log line)
        ("failed (exitcode: 1) local_rank: 0 (pid: 48968) of binary: /usr/bin/python3.10", 1, None),
    ],
)
def test_codes(line: str, code: int, signal: str | None) -> None:
    f = parse(line)
    assert f is not None and (f.code, f.signal) == (code, signal)


@pytest.mark.parametrize(
    "text",
    ["", "He Killed the bug", "Killed process groups are fine", "CUDA error: the launch timed out and was terminated"],
)
def test_not_an_exit(text: str) -> None:
    assert parse(text) is None


def test_merge_record_wins_and_flags_are_kept() -> None:
    text = parse("Aborted (core dumped)")
    m = merge(text, code=-6, signal=None, timed_out=False)
    assert (m.code, m.signal, m.core_dumped) == (-6, "SIGABRT", True)
    assert merge(None, code=139, signal=None, timed_out=False).signal == "SIGSEGV"  # shells: 128 + N
    assert merge(None, code=1, signal=None, timed_out=True) == ExitFacts(code=1, timed_out=True)
    assert merge(ExitFacts(signal="SIGKILL"), code=None, signal="15", timed_out=False).signal == "SIGTERM"


@pytest.mark.parametrize(
    ("value", "name"), [("SIGSEGV", "SIGSEGV"), ("segv", "SIGSEGV"), ("11", "SIGSEGV"), (6, "SIGABRT")]
)
def test_normalise_signal(value: str | int, name: str) -> None:
    assert normalise_signal(value) == name


# captured here: gcc 12 and glibc 2.36 running a program whose assert(n <= 1024 && "...") fails, under bash
GLIBC_ASSERT = """a: a.c:2: softmax_rows: Assertion `n <= 1024 && "at most 1024 elements per row"' failed.
bash: line 1:  7091 Aborted                 ./a
exit code 134
"""


def test_a_failed_assertion_before_the_abort_is_kept_and_cited() -> None:
    f = parse(GLIBC_ASSERT)
    assert f is not None and f.signal == "SIGABRT"
    assert (f.assertion, f.assertion_at) == ('n <= 1024 && "at most 1024 elements per row"', "a.c:2")
    assert f.lines == (1, 2, 3)


def test_an_assertion_wrapped_by_a_long_signature_is_cited_from_its_location() -> None:
    # NVIDIA/apex#916 (corpus/holdout27): glibc's message, the function's signature wrapping it over three lines
    f = parse(corpus_log("holdout27", "h27a-apex-fmha-softmax-over-1024"))
    assert f is not None and f.signal == "SIGABRT"
    assert f.assertion == "softmax_success"
    assert f.assertion_at == "apex/contrib/csrc/multihead_attn/self_multihead_attn_cuda.cu:153"
    assert f.lines == (1, 2, 3, 4)


def test_the_abort_rule_cites_the_assertion_and_does_not_send_the_reader_looking_for_it() -> None:
    report = classify_text(GLIBC_ASSERT)
    assert report.status == "unknown" and report.diagnosis is not None
    best = report.diagnosis.findings[0]
    assert best.rule == "exit-abort"
    assert 1 in {c.line for c in best.evidence}
    assert "a.c:2" in best.caveats and "find the message" not in best.caveats
