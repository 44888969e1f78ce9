"""A pipeline's colours and per-line prefixes change no answer (diagnose/collectors/decorations.py).

The same failure reaches kdiag through a CI console, a container's log, an MPI or Ray job, a
multi-node launcher, a quote in a bug report or a web page's source.  Each decoration below is applied to every line of
the labelled development logs and of the healthy corpus, as the tool named adds it; the answer
(status, category, rule) must be the one on the log as the program printed it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.collectors.decorations import undecorate
from diagnose.inputs import InputRecord, load_yaml
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
#: held-out sets stay unread
HELD_OUT = {"holdout4", "holdout14", "holdout15"}


def _each_line(prefix: Callable[[int], str]) -> Callable[[str], str]:
    return lambda log: "\n".join(prefix(i) + line for i, line in enumerate(log.split("\n")))


DECORATIONS: dict[str, Callable[[str], str]] = {
    "GitHub Actions time stamps": _each_line(lambda i: f"2026-12-05T11:{i % 60:02d}:02.1234567Z "),
    "ANSI colours": lambda log: "\n".join(f"\x1b[31m{ln}\x1b[0m" if ln else ln for ln in log.split("\n")),
    "docker compose": _each_line(lambda i: "trainer-1  | "),
    "Open MPI --tag-output": _each_line(lambda i: "[1,0]<stderr>:"),
    "Ray worker": _each_line(lambda i: "(RayWorkerWrapper pid=4242, ip=10.0.0.2) "),
    "pdsh host": _each_line(lambda i: "worker-3: "),
    "srun --label": _each_line(lambda i: "0: "),
    "torchrun --tee": _each_line(lambda i: "[default0]:"),
    "torch.distributed rank": _each_line(lambda i: "[rank0]: "),
    "journald": _each_line(lambda i: "Dec 05 11:13:02 gpu-node-7 python3[4242]: "),
    "pytest E column": _each_line(lambda i: "E       "),
    "Markdown quote": _each_line(lambda i: "> "),
    # a report quoting each line as inline code (a line that holds a backtick itself is left as it is)
    "Markdown inline code": lambda log: "\n".join(
        f"`{ln}`" if ln.strip() and "`" not in ln else ln for ln in log.split("\n")
    ),
    # an unterminated tqdm bar with the log's first line written right after it
    "progress bar left unterminated": lambda log: "\r 37%|###7      | 37/100 [00:03<00:05, 11.2it/s]" + log,
    # a progress bar redrawn with carriage returns before some of the lines (tqdm, pip), as a file keeps it
    "progress bar redrawn": lambda log: "\n".join(
        ("  0%|          | 0/100\r 37%|###7      | 37/100 [00:03<00:05]\r" + ln) if i % 3 == 1 else ln
        for i, ln in enumerate(log.split("\n"))
    ),
    # what a copy changes inside the text: a web page's source, a forum's or word processor's quotes
    "HTML escaped": html.escape,
    "typographic quotes": lambda log: re.sub(
        r"'([^'\n]*)'", "\u2018\\1\u2019", re.sub(r'"([^"\n]*)"', "\u201c\\1\u201d", log)
    ),
}


def _logs() -> list[tuple[str, str]]:
    logs: list[tuple[str, str]] = []
    files = sorted(p for p in CORPUS.glob("holdout*/issues.yaml") if p.parent.name not in HELD_OUT)
    files += sorted((CORPUS / "healthy").glob("*.yaml"))
    for path in files:
        for case in load_yaml(path.read_text()) or []:
            if isinstance(case, dict) and case.get("log"):
                logs.append((str(case["id"]), str(case["log"])))
    return logs


@pytest.fixture(scope="module")
def answers() -> tuple[Matcher, list[tuple[str, str]], dict[str, tuple[str, str, str | None]]]:
    matcher = Matcher(default_rules())
    logs = _logs()
    return matcher, logs, {cid: _answer(matcher, log) for cid, log in logs}


def _answer(matcher: Matcher, log: str) -> tuple[str, str, str | None]:
    r = classify_record(InputRecord(id="x", text=log), matcher, text_prior=True)  # as `kdiag classify` answers
    return r.status, r.diagnosis.category if r.diagnosis else "", r.diagnosis.rule if r.diagnosis else None


@pytest.mark.parametrize("name", list(DECORATIONS))
def test_a_decoration_changes_no_answer(answers, name: str) -> None:
    matcher, logs, plain = answers
    assert len(logs) > 1500
    decorate = DECORATIONS[name]
    # each decoration on every other log, the decorations alternating between the two halves: every log is read
    # under half the decorations, in half the time of reading each log under all of them
    half = list(DECORATIONS).index(name) % 2
    changed = [cid for cid, log in logs[half::2] if _answer(matcher, decorate(log)) != plain[cid]]
    assert not changed, changed


def test_a_whole_log_printed_as_one_python_string_is_read_line_by_line(answers) -> None:
    # a captured stderr shown as Python prints a string (the log's line breaks as "\\n"): a log of three or more
    # lines gets the answer it gets as printed
    matcher, logs, plain = answers
    several = [(cid, log) for cid, log in logs if log.count("\n") >= 3]
    assert len(several) > 800
    changed = [cid for cid, log in several if _answer(matcher, repr(log)) != plain[cid]]
    assert not changed, changed


def test_line_numbers_are_the_input_s() -> None:
    log = "2026-12-05T11:13:02.1Z step 1\n2026-12-05T11:13:03.1Z RuntimeError: CUDA error: out of memory\n"
    ev = collect(log)
    assert ev.log.text.splitlines()[1] == "RuntimeError: CUDA error: out of memory"
    assert ev.log.line_count == 2


@pytest.mark.parametrize(
    "text",
    [
        # a program's own words at a line's start stay, however many lines carry them
        "RuntimeError: a\nRuntimeError: b\nRuntimeError: c",
        "ptxas info    : Used 32 registers\nptxas info    : Used 40 registers",
        # a REPL's prompt is not a quote
        ">>> import torch\n>>> torch.zeros(1).cuda()\nTraceback (most recent call last):",
        # glog's severity column is the program's (a warning stays a warning)
        "W1203 12:00:01.5 a.cc:3] slow\nE1203 12:00:02.5 a.cc:4] failed",
        # a logger's own time stamp and level stay: the level says what the line is
        "2026-12-05 11:13:02,123 - trainer - WARNING - slow step",
        # one host name on a few lines only is not a launcher's prefix
        "node01: starting\nRuntimeError: CUDA error: out of memory\nmore\nand more\nthe end",
    ],
)
def test_what_is_not_a_decoration_stays(text: str) -> None:
    assert undecorate(text) == text


def test_an_encoded_line_break_is_left_encoded() -> None:
    text = "a &lt;b&gt;&#10;c\nRuntimeError: x"
    assert undecorate(text).count("\n") == 1


def test_prefixes_stack_and_colours_inside_a_line_go() -> None:
    line = "2026-12-05T11:13:02.1Z [rank1]: \x1b[1;31mRuntimeError\x1b[0m: CUDA error: \x1b]8;;https://x\x07link\x1b]8;;\x07"
    assert undecorate(line) == "RuntimeError: CUDA error: link"
