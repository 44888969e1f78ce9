"""What an ``unknown`` answer says when no rule matched: the kind of failure, candidates, a deciding check.

When no rule fires on a failing log, the report is ``unknown / unmatched``.  An expert reading that log
still knows something from the *kind* of failure it shows: a segmentation fault with no GPU error text
is a host-side bug or a binary built against another version, and a backtrace decides; a wrong result
is decided by a reference run on the CPU.  :func:`hint_for` reads the kind from the collectors' facts
and the log's failure lines (:mod:`diagnose.failure_lines`) and looks it up in
``diagnose/data/unmatched.yaml``: ranked candidates (category, and a failure mode where the kind
names one) and the check that decides between them, in the words of the log's framework
(:func:`diagnose.explain.framework`).

The candidates never decide: they carry no confidence, and a report's category and failure mode stay
``unknown / unmatched``.

>>> from diagnose.collectors import collect
>>> h = hint_for(collect("Segmentation fault (core dumped)\\n"))
>>> h.kind, [c.category for c in h.candidates]
('signal', ['kernel-logic', 'environment'])
>>> hint_for(collect("step 1 loss 0.3\\n")) is None
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from diagnose.evidence import Evidence
from diagnose.failure_lines import failure_lines, first_failure, printed_result_lines

DATA = Path(__file__).parent / "data" / "unmatched.yaml"
CATEGORIES = ("kernel-logic", "environment", "runtime-assumption")
#: how many of the log's failure lines the kinds' patterns are tried on
LINES = 10
#: and how many lines after each (a message goes on: ``with exception:`` then the exception)
FOLLOWING = 2
#: the flags a kind's patterns are compiled with
FLAGS = re.MULTILINE


def _env_issue(ev: Evidence) -> bool:
    from diagnose.failure import _ENV_INFORMATIONAL

    return ev.env is not None and any(i not in _ENV_INFORMATIONAL for i in ev.env.issues)


#: the collector facts a kind can name: each says the log shows a failure of that kind
FACTS: dict[str, Callable[[Evidence], bool]] = {
    "oom": lambda ev: bool(ev.oom is not None and ev.oom.kind) or bool(ev.exit is not None and ev.exit.oom_killed),
    "env": _env_issue,
    "compiler": lambda ev: (
        ev.compiler is not None
        and bool(ev.compiler.error_count > 0 or ev.compiler.ptxas_fatal or ev.compiler.unknown_arch)
    ),
    "sanitizer": lambda ev: ev.sanitizer is not None and bool(ev.sanitizer.error_count > 0 or ev.sanitizer.api_error),
    "cuda": lambda ev: ev.cuda is not None and bool(ev.cuda.error or ev.cuda.errors),
    # a library's or tool's message family; the Python interpreter's own messages are an exception's, not a status
    "family": lambda ev: (
        ev.concept is not None
        and bool(ev.concept.failed and ev.concept.family)
        and not set(ev.concept.tools) <= {"python"}
    ),
    # a failure line states the contract the call broke: the values it supports, or a property it requires
    "contract": lambda ev: (
        ev.concept is not None and bool(ev.concept.failed and (ev.concept.supported or ev.concept.contract))
    ),
    "signal": lambda ev: ev.exit is not None and bool(ev.exit.signal or ev.exit.core_dumped),
    "timeout": lambda ev: ev.exit is not None and bool(ev.exit.timed_out),
    "numerics": lambda ev: (
        ev.numerics is not None
        and bool(ev.numerics.mismatch or ev.numerics.nan_in_output or ev.numerics.shape_mismatch)
        and not ev.numerics.expected_variation
    ),
    # printed values that differ where they must agree (diagnose.comparisons: a reference and a device value, one
    # expression on the GPU and on the CPU), with no error printed
    "printed": lambda ev: bool(printed_result_lines(ev.log.text, 1)),
    "exception": lambda ev: ev.py is not None and bool(ev.py.exc_type),
    "exit": lambda ev: ev.exit is not None and ev.exit.code not in (None, 0),
}


@dataclass(frozen=True)
class Candidate:
    category: str
    failure_mode: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"category": self.category, "failure_mode": self.failure_mode}

    def __str__(self) -> str:
        return f"{self.category} / {self.failure_mode}" if self.failure_mode else self.category


#: the platforms a check may have a text of its own for (a key beside the frameworks'), and the log fact that
#: shows each: a TPU program gets no CUDA tools (compute-sanitizer, nvidia-smi, the CUDA wheels), nor does one on
#: another GPU runtime (HIP/ROCm, OpenCL, SYCL, Metal, chipStar), which has debug and validation layers of its own
PLATFORMS = {"tpu": "log_tpu", "gpu-other": "log_gpu_runtime"}


def platform(context: Mapping[str, Any]) -> str | None:
    """The platform the log shows, when it has checks of its own (``tpu``), else None."""
    return next((p for p, fact in PLATFORMS.items() if context.get(fact)), None)


@dataclass(frozen=True)
class Kind:
    kind: str
    seen: str
    facts: tuple[str, ...]
    lines: tuple[re.Pattern[str], ...]
    candidates: tuple[Candidate, ...]
    check: str
    checks: tuple[tuple[str, str], ...] = ()  # (framework, text) where the check depends on the framework
    # the candidates that lead when the log shows the job got through earlier steps first (oom_progress)
    after_progress: tuple[Candidate, ...] = ()
    platform: str | None = None  # "cuda": only a CUDA program's log shows this kind

    def check_for(self, framework: str | None, platform: str | None = None) -> str:
        """The check for a log of this framework; on a platform with a text of its own (``tpu``), that text."""
        keyed = dict(self.checks)
        if platform and platform in keyed:
            return keyed[platform]
        return keyed.get(framework or "", self.check)


@dataclass(frozen=True)
class Hint:
    """The kind of failure an unmatched log shows, its candidates (best first) and the deciding check."""

    kind: str
    seen: str
    candidates: tuple[Candidate, ...]
    check: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seen": self.seen, "candidates": [c.to_dict() for c in self.candidates]}


def parse_kinds(items: Any) -> tuple[Kind, ...]:
    """The table's kinds; a malformed entry raises ValueError naming it (the table ships with kdiag)."""
    from diagnose.regex_code import compile_pattern  # from the code kept with the rule base, where it is
    from diagnose.rule_model import FIX_FRAMEWORKS, KEBAB

    if not isinstance(items, list) or not items:
        raise ValueError("unmatched.yaml: a non-empty list of kinds")
    out = []
    for item in items:
        name = item.get("kind") if isinstance(item, dict) else None
        if not isinstance(name, str) or not KEBAB.match(name):
            raise ValueError(f"unmatched.yaml: every entry needs a kebab-case kind: {item!r}")
        facts = tuple(item.get("facts") or ())
        if any(f not in FACTS for f in facts):
            raise ValueError(f"unmatched.yaml {name}: unknown fact in {facts} (known: {', '.join(FACTS)})")
        cands: list[Candidate] = []
        after: list[Candidate] = []
        for key, into in (("candidates", cands), ("after_progress", after)):
            for c in item.get(key) or ():
                if not isinstance(c, dict) or c.get("category") not in CATEGORIES:
                    raise ValueError(f"unmatched.yaml {name}: a candidate needs a category of {CATEGORIES}: {c!r}")
                into.append(Candidate(c["category"], c.get("failure_mode")))
        if item.get("platform") not in (None, "cuda"):
            raise ValueError(f"unmatched.yaml {name}: platform is cuda when given")
        check = item.get("check")
        keyed: dict[str, str] = dict(check) if isinstance(check, dict) else {"default": check}
        if not all(isinstance(t, str) and t.strip() for t in keyed.values()) or "default" not in keyed:
            raise ValueError(f"unmatched.yaml {name}: check is a text or a mapping with a default text")
        if any(fw not in FIX_FRAMEWORKS and fw not in PLATFORMS for fw in keyed if fw != "default"):
            raise ValueError(
                f"unmatched.yaml {name}: check keys are default, {', '.join(FIX_FRAMEWORKS)} and {', '.join(PLATFORMS)}"
            )
        out.append(
            Kind(
                kind=name,
                seen=str(item.get("seen") or name),
                facts=facts,
                lines=tuple(compile_pattern(p, FLAGS) for p in item.get("lines") or ()),
                candidates=tuple(cands),
                check=" ".join(keyed.pop("default").split()),
                checks=tuple((fw, " ".join(t.split())) for fw, t in keyed.items()),
                after_progress=tuple(after),
                platform=item.get("platform"),
            )
        )
    return tuple(out)


@functools.lru_cache(maxsize=1)
def default_kinds() -> tuple[Kind, ...]:
    # libyaml's loader where PyYAML has it (the same data, read many times faster), else PyYAML's own
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return parse_kinds(yaml.load(DATA.read_text(encoding="utf-8"), Loader=loader))


def kind_of(ev: Evidence, kinds: tuple[Kind, ...] | None = None) -> Kind | None:
    """The first kind (in the table's order) whose facts hold, or whose pattern one of the log's failure
    lines (or a line just after one) matches; None when the log shows no failure at all."""
    kinds = default_kinds() if kinds is None else kinds
    lines = _failure_text(ev)
    # the lines together: a pattern none of whose literals they hold is found in none of them
    joined = "\n".join(lines)
    for k, facts, patterns in _tests(kinds):  # (loops, not any() over generators: this runs for every unknown answer)
        for fact in facts:
            if fact(ev):
                return k
        for may, search in patterns:
            if may(joined):
                for line in lines:
                    if search(line):
                        return k
    return None


_Tests = tuple[tuple[Kind, tuple[Callable[[Evidence], bool], ...], tuple[tuple[Callable[[str], bool], ...], ...]], ...]
#: the kinds :func:`kind_of` read last and their tests: each kind's fact tests, and its patterns' (:func:`_may`,
#: :func:`_search`)
_TESTS: tuple[tuple[Kind, ...], _Tests] = ((), ())


def _tests(kinds: tuple[Kind, ...]) -> _Tests:
    """Each kind with its fact tests and its patterns' tests, made once per table of kinds."""
    global _TESTS
    if _TESTS[0] is not kinds:
        made = tuple(
            (k, tuple(FACTS[f] for f in k.facts), tuple((_may(rx), _search(rx)) for rx in k.lines)) for k in kinds
        )
        _TESTS = (kinds, made)
    return _TESTS[1]


@functools.lru_cache(maxsize=4096)
def _may(rx: re.Pattern[str]) -> Callable[[str], bool]:
    """:func:`diagnose.regex_literals.may_match` of a kind's pattern (False only where a text holds none of the
    literals every match holds), made once per pattern."""
    from diagnose.regex_literals import may_match

    return may_match(rx)


@functools.lru_cache(maxsize=4096)
def _search(rx: re.Pattern[str]) -> Callable[[str], bool]:
    """``rx.search(line) is not None``, answered by the pattern's anchor tests where it has them
    (diagnose.regex_anchor: a line that holds none of the literals every match starts with is not searched)."""
    from diagnose.regex_anchor import hit_test

    return hit_test(rx)


def _failure_text(ev: Evidence) -> list[str]:
    """The log's failure lines, each with the few lines that follow it, and the lines a message
    family's fact cites (a wrapped message: ``... failed: Resource exhausted: Out`` / ``of memory``)."""
    text = ev.log.text
    wanted: set[int] = set()
    for n, _ in failure_lines(text, LINES):
        wanted.update(range(n, n + FOLLOWING + 1))
    if ev.concept is not None:
        for n in ev.concept.lines:
            wanted.update(range(n, n + FOLLOWING + 1))
    if not wanted:
        return []
    last = max(wanted)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if n > last:
            break
        if n in wanted and len(line) <= 2000:
            out.append(line.strip())
    return out


def _progress(ev: Evidence, k: Kind) -> str | None:
    """The training loop's progress line up to the log's first failure line of kind ``k`` (on it, or above
    it), when its counter shows the job got through earlier steps (``Epoch 4/10``, ``step 1200``:
    diagnose.collectors.oom.progress_before)."""
    from diagnose.collectors.oom import progress_before

    text = ev.log.text
    for n, line in failure_lines(text, LINES):
        if any(_search(rx)(line) for rx in k.lines):
            return progress_before(text, n + 1)
    return None


def hint_for(ev: Evidence, context: Mapping[str, Any] | None = None) -> Hint | None:
    """The hint for a log no rule matched (None when the log shows no failure); never raises."""
    try:
        k = kind_of(ev)
        if k is None:
            return None
        from diagnose.explain import framework, render

        ctx = ev.context() if context is None else context
        candidates = k.candidates
        if k.after_progress:
            progress = ctx.get("oom_progress") or _progress(ev, k)
            if progress:
                # the job ran earlier steps at the same size first: what grows with the run leads
                ctx = {**ctx, "oom_progress": progress}
                candidates = (*k.after_progress, *(c for c in candidates if c not in k.after_progress))
        fw = framework(ctx) if k.checks else None
        # a check may keep a step to one system ([[{log_windows:if} ...]], like a rule's fix)
        text = k.check_for(fw, platform(ctx))
        if "{log_first_failure}" in text:  # a check that quotes the log's own first failure line
            ctx = {**ctx, "log_first_failure": first_failure(ev.log.text or "")}
        if "{cuda_error_doc}" in text:  # a check that quotes what NVIDIA says the status means
            from diagnose.cuda_error_table import doc

            ctx = {**ctx, "cuda_error_doc": doc(ctx.get("cuda_error"))}
        return Hint(kind=k.kind, seen=k.seen, candidates=candidates, check=render(text, ctx) or k.check)
    except Exception:  # a hint is an extra: a log it cannot read keeps its plain unknown
        return None
