"""The message catalogue: it loads, every family's own messages match its patterns, the literal
prefilter never hides a match, and broken files are reported with file, line and reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_logs import spread

from diagnose.catalogue import CatalogueError, default_catalogue, lint_catalogue, load_catalogue
from diagnose.collectors.families import facts_from
from diagnose.inputs import load_yaml
from diagnose.regex_literals import literal_options

CAT = default_catalogue()
ROOT = Path(__file__).resolve().parents[2]


def test_catalogue_loads_and_every_message_matches_its_family() -> None:
    assert len(CAT) > 0
    problems = [str(p) for p in lint_catalogue(CAT)]
    assert not problems, "\n".join(problems)


def _corpus_logs() -> list[str]:
    logs = []
    for path in sorted((ROOT / "corpus").rglob("*.yaml")):
        data = load_yaml(path.read_text())
        for case in data if isinstance(data, list) else []:
            if isinstance(case, dict):
                logs.append("\n".join(str(case.get(k) or "") for k in ("log", "stdout", "stderr")))
    return logs


def test_prefilter_never_hides_a_match() -> None:
    """Scanning with the Aho-Corasick literals finds exactly what running every pattern finds: on every family's
    own messages, and on 1,000 logs of the corpus spread evenly over it (a fixed number, in a fixed order, keeps the
    suite's time as the corpus grows)."""
    texts = spread(_corpus_logs(), 1000) + [m.sample or m.text for f in CAT.families for m in f.messages]
    assert len(texts) > 100
    for text in texts:
        fast = {h.family.id for h in CAT.scan(text)}
        slow = {f.id for f in CAT.families if any(_said(f, rx, text) for rx in f.patterns)}
        assert fast == slow, text[:200]


def _said(family, rx, text: str) -> bool:  # type: ignore[no-untyped-def]
    """A match the scan counts: not code a compiler quotes under its error, nor code comparing against the error's
    name (catalogue.compiler_echo, catalogue.compared), and a message shape not inside a Python warning or a glog
    record of warning or INFO severity (catalogue.warned, log_records.logged_low)."""
    from diagnose.catalogue import compared, compiler_echo, warned
    from diagnose.log_records import logged_low

    def counted(m) -> bool:  # type: ignore[no-untyped-def]
        if compiler_echo(text, m.start()) or compared(text, m.start(), m.end()):
            return False
        return not (family.tool == "message-shape" and (warned(text, m.start()) or logged_low(text, m.start())))

    return any(counted(m) for m in rx.finditer(text))


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"Unsupported \.version (?P<v>\d+); current", "Unsupported .version "),
        (r"(?:Feature|Instruction) .{1,80}? requires \.target", " requires .target"),
        (r"(a|b)c", None),
        (r"out of resource: (?P<resource>[\w ]+), Required", "out of resource: "),
    ],
)
def test_required_literal(pattern: str, literal: str | None) -> None:
    import re

    # the catalogue's prefilter anchors: the literals every match holds, lowered (the text is searched lowered)
    got = literal_options(re.compile(pattern), folded=True)
    assert (tuple(a.strip() for a in got[0]) if got else None) == ((literal.strip().lower(),) if literal else None)


@pytest.mark.parametrize(
    ("pattern", "anchors"),
    [
        # a subject first, then one of several required words: any of them anchors it (the longest set wins)
        (r"(?i)(?P<s>[\w.]+)\s+(?:must|should|has\s+to)\s+be\s+(?:contiguous|aligned)", ("aligned", "contiguous")),
        (r"(?i)(?P<s>[\w.]+)\s+(?:must|should|has\s+to)\s+be\b", ("has", "must", "should")),
        # a longer literal run anchors alone
        (r"(?i)(?P<s>[\w.]+)\s+(?:must|should)\s+be\s+contiguous", ("contiguous",)),
        # a scoped-flags group is always there: its literals count
        (r"(?i:\bMin(?:imum)?\s+capability:\s*\d+)", ("capability:",)),
        (r"(?i:\b(?:could\s*not|unable to) (?:load|dlopen))", ("could", "unable to")),
        # an optional group or an alternative too short to anchor: no anchor, tried on every text
        (r"(?:foo)?barbaz", ("barbaz",)),
        (r"(?:ab|cde)x", None),
        (r"(a|b)c", None),
    ],
)
def test_required_literals(pattern: str, anchors: tuple[str, ...] | None) -> None:
    import re

    got = literal_options(re.compile(pattern), folded=True)
    assert (got[0] if got else None) == anchors


def test_broken_catalogue_lists_every_problem_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "tool: demo\n"
        "families:\n"
        "  - id: Not_Kebab\n"
        "    title: t\n"
        "    category: kernel-logic\n"
        "    failure_mode: x\n"
        "    messages: [{text: m, source: s}]\n"
        "    patterns: ['(unclosed']\n"
        "    explain: {what: a, why: b, fix: c}\n"
        "  - id: unknown-group\n"
        "    title: t\n"
        "    decide: concepts\n"
        "    messages: [{text: m, source: s}]\n"
        "    patterns: ['needs (?P<colour>\\w+)']\n"
        "    explain: {what: a, why: b, fix: c}\n"
    )
    (tmp_path / "broken.yaml").write_text("tool: [unclosed\n")
    with pytest.raises(CatalogueError) as err:
        load_catalogue(tmp_path)
    text = str(err.value)
    assert "bad.yaml:3: family 'Not_Kebab': id must be kebab-case" in text
    assert "bad.yaml:3: family 'Not_Kebab': bad pattern" in text
    assert "bad.yaml:10: family 'unknown-group': pattern" in text and "colour" in text
    assert "broken.yaml:" in text and "invalid YAML" in text


def test_concepts_are_normalised_and_compared() -> None:
    import re

    from diagnose.catalogue import Catalogue, Family, Message

    fam = Family(
        id="demo-smem",
        tool="demo",
        title="t",
        category=None,
        failure_mode=None,
        severity="error",
        confidence=0.8,
        priority=45,
        messages=(Message("x", "y"),),
        patterns=(re.compile(r"shared memory (?P<requested>\S+ ?[KMG]?i?B?) over (?P<limit>0x[0-9a-f]+)"),),
        concepts=(("resource", "shared-memory"),),
        explain={},
        references=(),
        examples=(),
        path="p",
        line=1,
    )
    f = facts_from(Catalogue((fam,)), "kernel: shared memory 576 KiB over 0x18c00\n")
    assert f is not None
    assert (f.requested, f.limit, f.over_limit, f.over_every_gpu) == (589824.0, 101376.0, True, True)


def test_the_first_error_family_message_is_quoted_from_its_own_line() -> None:
    """concept_message: the line the first error family matched, spaces collapsed, long lines cut."""
    log = (
        "building kernel.ptx\n"
        "ptxas fatal   : Unsupported .version 9.1; current version is '9.0'\n"
        "ptxas fatal   : Ptx assembly aborted due to errors\n"
    )
    f = facts_from(CAT, log)
    assert f is not None and f.family == "ptxas-ptx-isa-too-new"
    assert f.message == "ptxas fatal : Unsupported .version 9.1; current version is '9.0'"
    long = facts_from(CAT, "ptxas fatal   : Unsupported .version 9.1; current version is '9.0' " + "x" * 300)
    assert long is not None and long.message is not None
    assert len(long.message) == 300 and long.message.endswith("...")


def test_a_family_fix_can_be_keyed_by_framework(tmp_path: Path) -> None:
    from diagnose.collectors import collect
    from diagnose.explain import explain_finding
    from diagnose.family_rules import family_rule

    family = (
        "tool: demo\n"
        "families:\n"
        "  - id: demo-ordinal\n"
        "    title: t\n"
        "    category: environment\n"
        "    failure_mode: no-gpu-visible\n"
        "    messages: [{text: invalid device ordinal, source: cudaGetErrorString(101)}]\n"
        "    patterns: ['invalid device ordinal']\n"
        "    explain:\n"
        "      what: 'A device index past the visible GPUs. The log says `{concept_message}`.'\n"
        "      why: b\n"
        "      fix: {default: Check the index., torch: Compare it with torch.cuda.device_count().}\n"
    )
    (tmp_path / "demo.yaml").write_text(family)
    (fam,) = load_catalogue(tmp_path).families
    assert fam.explain["fix"] == "Check the index." and dict(fam.fixes) == {
        "torch": "Compare it with torch.cuda.device_count()."
    }
    rule = family_rule(fam)
    torch_log = "torch.AcceleratorError: CUDA error: invalid device ordinal\n"
    ctx = collect(torch_log).context() | {"concept_message": "CUDA error: invalid device ordinal"}
    got = explain_finding(rule, None, ctx)
    assert got.fix == "Compare it with torch.cuda.device_count()."
    assert got.what == "A device index past the visible GPUs. The log says `CUDA error: invalid device ordinal`."
    cpp = collect("main.cu:12: invalid device ordinal\n").context()
    assert explain_finding(rule, None, cpp).fix == "Check the index."
    (tmp_path / "demo.yaml").write_text(family.replace("torch: Compare", "julia: Compare"))
    with pytest.raises(CatalogueError, match="unknown framework 'julia'"):
        load_catalogue(tmp_path)


def test_a_line_start_anchor_needs_multiline(tmp_path: Path) -> None:
    """A log is searched whole: ``^`` without ``(?m)`` holds only at its first line, so a message printed below
    an exception's head ("NvvmError: Failed to compile", a blank line, then libNVVM's log) would go unseen."""
    family = (
        "tool: demo\n"
        "families:\n"
        "  - id: demo-anchored\n"
        "    title: t\n"
        "    category: environment\n"
        "    failure_mode: version-skew\n"
        "    messages: [{text: '<unnamed> (1, 2): parse expected type', source: libnvvm strings}]\n"
        "    patterns: ['^\\S+ \\(\\d+, \\d+\\): parse ', '(?m)^\\S+ \\(\\d+, \\d+\\): parse expected']\n"
        "    explain: {what: a, why: b, fix: c}\n"
    )
    (tmp_path / "demo.yaml").write_text(family)
    problems = [str(p) for p in lint_catalogue(load_catalogue(tmp_path))]
    assert len(problems) == 1 and "without (?m)" in problems[0] and "demo-anchored" in problems[0]


def _note_samples() -> list[tuple[str, str]]:
    from diagnose.coverage import _messages

    return [(f.id, text) for f in CAT.families if f.severity == "note" for text in _messages(f)]


def test_a_note_family_s_message_is_never_a_failure_line_whatever_its_log_level() -> None:
    from diagnose.failure_lines import failure_lines

    samples = _note_samples()
    assert len(samples) >= 8
    for fid, text in samples:
        # as the tool printed it, and as glog prints it at error level (XLA logs its timing note at E)
        for line in (text, f"2025-05-14 10:34:02.197166: E external/xla/xla/some_file.cc:86] {text}"):
            assert failure_lines(line) == [], (fid, line)


def test_a_note_beside_a_failure_leaves_the_failure_found() -> None:
    from diagnose.failure_lines import failure_lines

    log = (
        "2025-05-14 10:34:02.197166: E external/xla/xla/stream_executor/cuda/cuda_timer.cc:86] Delay kernel timed "
        "out: measured time has sub-optimal accuracy. There may be a missing warmup execution, please investigate "
        "in Nsight Systems.\n"
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1024 bytes.\n"
    )
    assert [n for n, _ in failure_lines(log)] == [2]
