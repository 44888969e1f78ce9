"""What `kdiag classify` reads: logs, directories, stdin, JSON Lines, YAML case files, harness results.

Every input becomes an :class:`InputRecord`.  Nothing here raises for a bad record: a
record that cannot be read (binary junk, empty, invalid JSON) comes back with
``error`` set, so the batch goes on and the report says what was wrong and where.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from diagnose import harness_logs

#: a text log above this is read as head + tail only (the collectors bound text further); no JSON
#: Lines record or structured file is ever cut: those stream record by record
READ_LIMIT = 64 << 20
_CHUNK = 1 << 20
#: what stdin's first read looks at to tell JSON Lines from a text log
_PEEK = 64 << 10
#: split-field JSONL records are joined into one log in this order, each under a header line
SPLIT_FIELDS = ("compile_log", "stdout", "stderr", "sanitizer_log", "log")
TEXT_SUFFIXES = {".log", ".txt", ".out", ".err", ""}
LABEL_KEYS = ("category", "failure_mode", "framework", "source")


@dataclass(frozen=True)
class InputRecord:
    id: str
    text: str = ""
    origin: str = ""
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False
    env: Mapping[str, Any] | None = None  # an environment snapshot (kdiag env --format json)
    passed: bool = False  # the harness that wrote it says this one passed
    error: str | None = None
    warnings: tuple[str, ...] = ()
    label: dict[str, Any] = field(default_factory=dict)
    source: str | None = None  # the file of the code that ran (a KernelBench run's generated kernel), never a log
    code: str | None = None  # the kernel's source when the record carries it (a ``kernel_code`` field)


def looks_binary(data: bytes) -> bool:
    """NUL bytes or mostly control characters: not a log."""
    sample = data[:8192]
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    control = sum(1 for b in sample if b < 32 and b not in (9, 10, 13, 27, 12, 8))
    return control / len(sample) > 0.1


def decode(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n")


def _read_upto(fh: BinaryIO, n: int) -> bytes:
    """Up to ``n`` bytes (fewer only at the end of the stream; a pipe may answer in pieces)."""
    parts: list[bytes] = []
    left = n
    while left > 0:
        chunk = fh.read(min(left, _CHUNK))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def read_head_tail(fh: BinaryIO, limit: int = READ_LIMIT) -> tuple[bytes, int, bool]:
    """One text input: all of it when it holds at most ``limit`` bytes, else its first and last
    ``limit // 2`` bytes around a marker line.  Returns (bytes, the input's size, cut?).  Memory stays
    under about ``limit`` whatever the size; works on pipes (no seeking)."""
    data = _read_upto(fh, limit + 1)
    if len(data) <= limit:
        return data, len(data), False
    half = limit // 2
    head, tail = data[:half], bytearray(data[half:])
    size = len(data)
    while chunk := fh.read(_CHUNK):
        size += len(chunk)
        tail += chunk
        if len(tail) > 2 * half:
            del tail[: len(tail) - half]
    return head + b"\n[kdiag: middle of input skipped]\n" + bytes(tail[-half:]), size, True


def text_record(rid: str, data: bytes, origin: str, *, truncated: bool = False, size: int | None = None) -> InputRecord:
    if not data.strip():
        return InputRecord(id=rid, origin=origin, error="empty input: nothing to classify")
    if looks_binary(data):
        return InputRecord(
            id=rid,
            origin=origin,
            error=f"binary data, not a text log ({size or len(data)} bytes; NUL or control bytes in the first 8 KiB)",
        )
    size = size if size is not None else len(data)
    warnings = (
        (f"input is {size:,} bytes; only its head and tail ({len(data) // 2:,} bytes each) were read",)
        if truncated
        else ()
    )
    text = decode(data)
    refused = popcorn_refused(text)
    if refused:
        return InputRecord(id=rid, text=text, origin=origin, warnings=warnings, error=refused)
    return InputRecord(id=rid, text=text, origin=origin, warnings=warnings, passed=popcorn_passed(text))


def text_records(
    rid: str, data: bytes, origin: str, *, truncated: bool = False, size: int | None = None
) -> Iterator[InputRecord]:
    """One text input: a record of its own, or one per program where it is a batch log of sections
    (:mod:`diagnose.harness_logs`: TritonBench's ``=== Output for NAME on GPU N ===``) or an evolutionary search's
    log of the programs it evaluated (OpenEvolve's ``Evaluated program ID in Ns: metrics``)."""
    rec = text_record(rid, data, origin, truncated=truncated, size=size)
    programs = harness_logs.evaluated_programs(rec.text) if rec.text and rec.error is None else None
    if programs:
        yield from _program_records(rid, origin, programs, rec.warnings)
        return
    parts = harness_logs.sections(rec.text) if rec.text and rec.error is None else None
    if not parts:
        yield rec
        return
    seen: dict[str, int] = {}
    for name, body in parts:
        seen[name] = seen.get(name, 0) + 1
        key = name if seen[name] == 1 else f"{name}#{seen[name]}"
        yield InputRecord(id=f"{rid}/{key}", text=body, origin=f"{origin}[{key}]", warnings=rec.warnings)


def _program_records(
    rid: str, origin: str, programs: list[tuple[str, dict[str, str], str, str | None]], warnings: tuple[str, ...]
) -> Iterator[InputRecord]:
    """One record per program an evolutionary search's log evaluated (:func:`harness_logs.evaluated_programs`): its
    line and what follows it, its code where the log printed it, passed when its metrics say so, and not a kernel's
    evaluation when they hold no correctness figure (a search-strategy program's ``validity``)."""
    seen: dict[str, int] = {}
    for pid, metrics, part, code in programs:
        seen[pid] = seen.get(pid, 0) + 1
        key = pid if seen[pid] == 1 else f"{pid}#{seen[pid]}"
        passed = harness_logs.program_passed(metrics)
        error = None
        if passed is None:
            error = (
                "not evaluated as a kernel: the program's metrics hold no correctness figure "
                f"({', '.join(sorted(metrics)) or 'none'})"
            )
        yield InputRecord(
            id=f"{rid}/{key}", text=part, origin=f"{origin}[{key}]", warnings=warnings, passed=bool(passed),
            error=error, code=code,
        )  # fmt: skip


#: GPU MODE's eval.py writes its result as ``key: value`` lines to POPCORN_FD (what popcorn-cli shows):
#: ``test-count``, ``test.N.spec``, ``test.N.status: pass|fail``, ``test.N.error``, ``benchmark.N.*``,
#: and last ``check: pass|fail``
#: popcorn-cli's printout of a finished submission (``Submission 907200 status: succeeded - ...``), whose cases it
#: marks with a check mark (passed) or a cross (failed)
_POPCORN_CLI_DONE = re.compile(r"(?m)^Submission \d+ status: succeeded\b")
#: its leaderboard-mode printout: the run's header in bold, ``**B200 on Modal ✅ success**``, then its steps as quoted
#: lines (``> ✅ Testing successful``), a cross on a step that failed
_POPCORN_RUN_HEADER = re.compile(r"(?m)^\W{0,2}\*\*[^*\n]{1,80} \u2705 success\*\*\s*$")
_POPCORN_KEY = re.compile(r"(?:check|test-count|benchmark-count|(?:test|benchmark)\.\d+\.[a-z_]+):")


#: popcorn-cli's submission printout before any result (``Submitting to leaderboard: NAME``, ``Waiting for
#: results...``), and the error it ends with when the service refused the submission (its top-level
#: ``Application error: ...``: a rate limit, an unknown leaderboard, a file it rejects)
_POPCORN_SUBMITTING = re.compile(r"(?m)^(?:Submitting to leaderboard: \S|Waiting for results\.\.\.\s*$)")
_POPCORN_APP_ERROR = re.compile(r"(?m)^Application error: (?P<msg>\S[^\n]*)\s*\Z")


def popcorn_refused(text: str) -> str | None:
    """Why nothing ran, when the text is popcorn-cli's printout of a submission the service refused before running
    it (it ends with ``Application error: ...`` and shows no test, benchmark or step result); else None.

    >>> popcorn_refused("Submitting to leaderboard: amd-mixed-mla\\nWaiting for results...\\n"
    ...     "Application error: Server processing error: Rate limit exceeded: 1/1 leaderboard submissions per hour.\\n")
    'not evaluated: the service refused the submission (Server processing error: Rate limit exceeded: 1/1 leaderboard submissions per hour.)'
    >>> popcorn_refused("Submitting to leaderboard: x\\n\u274c Running tests failed\\nApplication error: boom\\n") is None
    True
    """
    if "Application error: " not in text or not _POPCORN_SUBMITTING.search(text):
        return None
    m = _POPCORN_APP_ERROR.search(text.rstrip() + "\n")
    if m is None or any(mark in text for mark in ("\u2705", "\u274c", "test-count:", "check: ")):
        return None
    return f"not evaluated: the service refused the submission ({m['msg'].strip()[:200]})"


def popcorn_passed(text: str) -> bool:
    """A GPU MODE result whose every test passed (``check: pass``, no ``status: fail``); a failed one
    stays a log: its ``test.N.error`` lines are the evidence."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if _POPCORN_CLI_DONE.search(text) or _POPCORN_RUN_HEADER.search(text):  # popcorn-cli's own printout
        marks = [ln.lstrip(">*\"' ") for ln in lines]  # every case or step marked passed, none failed
        return any(m.startswith("\u2705") for m in marks) and not any("\u274c" in m for m in marks)
    if "check: pass" not in lines or not any(ln.startswith(("test-count:", "benchmark-count:")) for ln in lines):
        return False
    keyed = [ln for ln in lines if _POPCORN_KEY.match(ln)]
    return len(keyed) >= len(lines) * 0.8 and not any(ln.endswith(".status: fail") for ln in keyed)


def _int(v: Any) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


#: fields in which a result record may carry the kernel's source (read by the source checks, never as a log)
CODE_FIELDS = ("kernel_code", "source_code")
#: fields in which kernel-generation harnesses keep the model's answer, read as the kernel's source when they hold
#: code (a fenced block, or PTX, Triton or CUDA text)
ANSWER_FIELDS = ("llm_out", "generated_code", "kernel_src", "completion")
_FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)```", re.S)
_LOOKS_LIKE_CODE = re.compile(r"```|^\s*\.(?:version|entry)\b|@triton\.jit|__global__|\bimport\s+torch\b", re.M)


def _code(*objs: Any) -> str | None:
    for obj in objs:
        if isinstance(obj, Mapping):
            for key in CODE_FIELDS:
                if isinstance(obj.get(key), str) and obj[key].strip():
                    return str(obj[key])
            for key in ANSWER_FIELDS:
                value = obj.get(key)
                if isinstance(value, str) and _LOOKS_LIKE_CODE.search(value):
                    return unfenced(value)  # a model's answer: its longest fenced block is the code
    return None


def unfenced(text: str) -> str:
    """The longest fenced code block of ``text`` (a model's answer), or ``text`` when it has none."""
    blocks = _FENCE.findall(text)
    return max(blocks, key=len) if blocks else text


def _wrapped_evaluations(obj: Any) -> tuple[str, list[dict]] | None:
    """A run's summary that holds its evaluation records in one list (``{"model": ..., "records": [{"sample": 0,
    "correct": false, "error": "..."}, ...]}``, ``{"stats": ..., "results": [...]}``): (the list's key, its records),
    or None when ``obj`` is not one.  Every item must be an object and at least one an evaluation record.

    >>> _wrapped_evaluations({"task": "t", "records": [{"sample": 0, "correct": False, "error": "boom"}]})[0]
    'records'
    >>> _wrapped_evaluations({"records": [{"name": "x"}]}) is None
    True
    >>> _wrapped_evaluations({"success": False, "history": [{"attempt": 1, "feedback": "COMPILATION FAILURE"}]})[0]
    'history'
    """
    if not isinstance(obj, dict) or (_evaluation(obj) is not None and not _search_summary(obj)):
        return None
    found = [
        (key, value)
        for key, value in obj.items()
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)
        and any(_evaluation(item) is not None for item in value)
    ]  # fmt: skip
    return found[0] if len(found) == 1 else None


def _search_summary(obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` tells only a whole search's outcome (``"success": false`` beside its best kernel, no error of
    its own): an agent's summary, whose list of attempts, when it keeps one, holds the records to read.

    >>> _search_summary({"success": False, "best_score": 0.4}), _search_summary({"success": False, "error": "boom"})
    (True, False)
    """
    own = [k for k in (*_EVAL_NAMES, *_EVAL_TEXTS) if isinstance(obj.get(k), str) and obj[k].strip()]
    flags = [k for k in _EVAL_FLAGS if isinstance(obj.get(k), bool)]
    return not own and flags == ["success"]


def _keyed_evaluations(obj: Any, depth: int = 3) -> dict[str, dict] | None:
    """Evaluation records keyed by the task or problem each evaluated (``{"s116": {"test_passed": false,
    "final_error": {...}}, ...}``), or by up to ``depth`` levels of keys (a sweep's variant, then the definition, then
    the workload: ``{"tc": {"moe": {"b8f4": {"status": "INCORRECT_NUMERICAL", ...}}}}``, read as ``tc/moe/b8f4``), or
    None when ``obj`` is not that: every value an evaluation record or an object of them.

    >>> sorted(_keyed_evaluations({"s1": {"test_passed": True}, "s2": {"error": "boom"}}))
    ['s1', 's2']
    >>> sorted(_keyed_evaluations({"tc": {"moe": {"w1": {"status": "PASSED"}, "w2": {"status": "TIMEOUT"}}}}))
    ['tc/moe/w1', 'tc/moe/w2']
    >>> _keyed_evaluations({"test_passed": True}) is None
    True
    """
    if not isinstance(obj, dict) or not obj or _evaluation(obj) is not None:
        return None
    return _keyed_below(obj, depth)


def _keyed_below(obj: dict, depth: int) -> dict[str, dict] | None:
    """:func:`_keyed_evaluations` of an object already known to be no evaluation record itself."""
    out: dict[str, dict] = {}
    for k, v in obj.items():
        if not isinstance(v, dict) or not v:
            return None
        if _evaluation(v) is not None:
            out[str(k)] = v
            continue
        inner = _keyed_below(v, depth - 1) if depth > 1 else None
        if inner is None:
            return None
        out.update({f"{k}/{key}": item for key, item in inner.items()})
    return out


#: an evaluation record's own name for the sample it evaluated (a harness's sample number, a dataset index), and an
#: agent's for its try (``attempt``: the record's id is then ``STEM/attempt_N``)
_SAMPLE_KEYS = ("sample_id", "sample", "sample_idx", "idx", "index", "attempt")


#: an evaluation record's own name for the task or problem it evaluated
_TASK_KEYS = ("task_id", "task_key", "task", "problem_id", "problem_name", "problem", "op_name")


def _evaluation_id(item: Mapping[str, Any], default: str, stem: str) -> str:
    """An evaluation record's id: its own ``id``, else ``TASK/sample_N`` from its task and sample fields, else
    ``STEM/sample_N`` from its sample field alone, else ``default``.

    >>> _evaluation_id({"task_key": "vector_add", "sample_idx": 2, "correct": False}, "f:1", "f")
    'vector_add/sample_2'
    >>> _evaluation_id({"attempt": 3, "feedback": "CORRECTNESS FAILURE"}, "f:1", "f")
    'f/attempt_3'
    """
    if isinstance(item.get("id"), (str, int)):
        return str(item["id"])
    key = next((k for k in _SAMPLE_KEYS if isinstance(item.get(k), (str, int)) and str(item[k])), None)
    if key is None:
        return default
    what = "attempt" if key == "attempt" else "sample"
    task = next((item[k] for k in _TASK_KEYS if isinstance(item.get(k), (str, int)) and str(item[k]).strip()), None)
    return f"{task if task is not None else stem}/{what}_{item[key]}"


def record_from_mapping(obj: Any, *, default_id: str, origin: str) -> InputRecord:
    """One JSON object: ``{"id", "log"}`` or split fields (stdout, stderr, exit_code, compile_log,
    sanitizer_log, env)."""
    if not isinstance(obj, dict):
        return InputRecord(id=default_id, origin=origin, error=f"expected a JSON object, got {type(obj).__name__}")
    rid = str(obj.get("id", default_id))
    parts = []
    present = [k for k in SPLIT_FIELDS if isinstance(obj.get(k), str) and obj.get(k)]
    bad = [k for k in SPLIT_FIELDS if k in obj and obj[k] is not None and not isinstance(obj[k], str)]
    if bad:
        return InputRecord(id=rid, origin=origin, error=f"field(s) {', '.join(bad)} must be strings")
    if present == ["log"]:
        parts.append(obj["log"])
    else:
        for k in present:
            parts.append(f"--- {k} ---\n{obj[k].rstrip()}\n")
    text = "\n".join(parts) if len(parts) > 1 else (parts[0] if parts else "")
    env = obj.get("env") if isinstance(obj.get("env"), dict) else None
    label = {k: obj[k] for k in LABEL_KEYS if isinstance(obj.get(k), str)}
    exit_code = _int(obj.get("exit_code", obj.get("returncode")))
    sig = obj.get("signal") if isinstance(obj.get("signal"), str) else None
    timed_out = bool(obj.get("timed_out", False))
    passed = False
    if not text.strip() and exit_code is None and sig is None and not timed_out and env is None:
        # a KernelBench result with its metadata, the record itself or nested in it, is read as KernelBench's own
        # records are (its error fields first); one with its two flags alone only when nothing else reads the record
        nested = nested_kb_result(obj, with_metadata=True)
        evaluated = None if nested is not None else _evaluation(obj) or _fields_with_failure(obj)
        if evaluated is None and nested is None:
            nested = nested_kb_result(obj)
        if nested is not None:
            evaluated = (_kb_text(nested), bool(nested.get("compiled")) and bool(nested.get("correctness")))
        if evaluated is None:
            return InputRecord(id=rid, origin=origin, error="record has no log, output, exit status or environment")
        text, passed = evaluated
        why = not_evaluated(obj) if nested is None else kb_not_evaluated(nested)
        if why is not None:
            return InputRecord(id=rid, origin=origin, text=text, label=label, error=why)
    if "\x00" in text[:8192]:
        return InputRecord(id=rid, origin=origin, error="binary data in the record's log fields")
    return InputRecord(
        id=rid,
        text=text,
        origin=origin,
        exit_code=exit_code,
        signal=sig,
        timed_out=timed_out,
        env=env,
        label=label,
        code=_code(obj),
        passed=passed,
    )


#: field names that say their value is a run's output or its failure, in a record whose schema kdiag does not know
_OUTPUT_KEY = re.compile(
    r"(?i)(?:^|_)(?:error|errors|exception|traceback|stderr|stdout|log|logs|output|failure|message)s?$"
)


def nested_kb_result(obj: Mapping[str, Any], depth: int = 5, *, with_metadata: bool = False) -> dict[str, Any] | None:
    """A KernelBench evaluation result (its ``compiled`` and ``correctness`` flags, the ``metadata`` its errors are
    in): the record itself, or one held inside another tool's record (an evolutionary search's program record keeps
    its evaluator's verdict under ``metrics``, an agent's step its harness's reply under a payload).  The shallowest
    one that has its ``metadata``; else (not ``with_metadata``) the shallowest with both flags, whose other plain
    fields then stand as its metadata; None when the record holds none.  What a record keeps of the program it came
    from (``parent_metrics``) is not its own.

    >>> r = nested_kb_result({"id": "p1", "metrics": {"compiled": True, "correctness": False, "score": 10,
    ...     "payload": {"result": {"compiled": True, "correctness": False, "metadata": {"runtime_error": "boom"}}}}})
    >>> r["metadata"]
    {'runtime_error': 'boom'}
    >>> nested_kb_result({"metrics": {"compiled": False, "correctness": False, "stage": "compile_error"}})["metadata"]
    {'stage': 'compile_error'}
    >>> nested_kb_result({"metrics": {"compiled": False, "correctness": False}}, with_metadata=True) is None
    True
    >>> nested_kb_result({"metrics": {"score": 1.0}}) is None
    True
    """
    found: list[tuple[int, dict[str, Any]]] = []

    def walk(value: Any, level: int) -> None:
        if not isinstance(value, Mapping) or level > depth:
            return
        if isinstance(value.get("compiled"), bool) and isinstance(value.get("correctness"), bool):
            found.append((level, dict(value)))
        for key, item in value.items():
            if str(key) not in CODE_FIELDS + ANSWER_FIELDS and not str(key).startswith("parent"):
                walk(item, level + 1)

    walk(obj, 0)
    with_meta = [f for f in found if isinstance(f[1].get("metadata"), Mapping)]
    if with_meta:
        return min(with_meta, key=lambda f: f[0])[1]
    if not found or with_metadata:
        return None
    result = min(found, key=lambda f: f[0])[1]
    plain = {
        k: v for k, v in result.items() if k not in ("compiled", "correctness") and isinstance(v, (str, int, float))
    }
    return {"compiled": result["compiled"], "correctness": result["correctness"], "metadata": plain}


#: field names that say their value is source code or a change to it (``after_code``, ``best_cuda_code``,
#: ``unified_diff``, ``kernel_source``), in a record whose schema kdiag does not know: the kernel, never its run's log
_CODE_KEY = re.compile(r"(?i)(?:^|_)(?:code|source|src|diff|patch)$")


def _fields_with_failure(obj: Mapping[str, Any], depth: int = 3) -> tuple[str, bool] | None:
    """A record of a schema kdiag does not know, read as its fields when one of them is a run's output or failure
    (its name says so: ``error``, ``stderr``, ``build_log``, ``exception_message``): every scalar field as ``path:
    value``, a multi-line value on the lines after its name, nested objects to ``depth``; None when no field is one.

    >>> _fields_with_failure({"task": "relu", "run": {"build_log": "k.cu(3): error: bad\\nstop", "ms": 1.5}})
    ('task: relu\\nrun.build_log:\\nk.cu(3): error: bad\\nstop\\nrun.ms: 1.5\\n', False)
    >>> _fields_with_failure({"task": "relu", "ms": 1.5}) is None
    True
    >>> _fields_with_failure({"after": {"exe_ok": False, "error": "boom"}, "after_code": "raise ValueError('x')"})
    ('after.exe_ok: False\\nafter.error: boom\\n', False)
    """
    lines: list[str] = []
    seen = False

    def walk(value: Any, path: str, left: int) -> None:
        nonlocal seen
        if isinstance(value, Mapping) and left > 0:
            for key, item in value.items():
                if str(key) not in CODE_FIELDS + ANSWER_FIELDS and not _CODE_KEY.search(str(key)):
                    walk(item, f"{path}.{key}" if path else str(key), left - 1)
        elif isinstance(value, str) and value.strip():
            name = path.rsplit(".", 1)[-1]
            seen = seen or bool(_OUTPUT_KEY.search(name))
            lines.append(f"{path}:\n{value.rstrip()}" if "\n" in value.strip() else f"{path}: {value.strip()}")
        elif isinstance(value, (bool, int, float)) and not isinstance(value, Mapping):
            lines.append(f"{path}: {value}")

    walk(obj, "", depth)
    return ("".join(f"{line}\n" for line in lines), False) if seen else None


#: a harness's static check, run before it compiles anything (a policy gate for kernels that hand the work to the
#: framework, KernelBench's kernel_static_checker): the flag it records, and the words its message starts with
_GATE_FLAGS = ("static_ok", "static_check_passed", "static_check", "passed_static_check")
_GATE_MESSAGE = re.compile(r"^\s*(?:static[ _]check(?:s|er)?\s+(?:failed|rejected)|rejected by (?:the )?static)", re.I)
#: the last exception of a recorded traceback, when it says the evaluation itself was stopped (a debugger's quit, an
#: interrupt) rather than failed
_INTERRUPTED = re.compile(r"(?m)^\s*(?:bdb\.BdbQuit|BdbQuit|KeyboardInterrupt)\b[^\n]*\s*\Z")


def not_evaluated(obj: Mapping[str, Any]) -> str | None:
    """Why an evaluation record holds no result of its kernel, when it says so: the harness's static check refused
    the kernel before anything ran, or the evaluation was stopped (a debugger's quit, an interrupt); None otherwise.

    >>> not_evaluated({"static_ok": False, "error": "static check failed: banned op (offloads core compute): .matmul"})
    "not evaluated: the harness's static check refused the kernel (static check failed: banned op (offloads core compute): .matmul)"
    >>> not_evaluated({"error_message": "Traceback (most recent call last):\\n  File \\"e.py\\", line 9\\nbdb.BdbQuit\\n"})
    'not evaluated: the evaluation was stopped (bdb.BdbQuit) before it gave a result'
    >>> not_evaluated({"correct": False, "error": "CompilationError: at 1:4:"}) is None
    True
    """
    msg = next((str(obj[k]) for k in _EVAL_TEXTS if isinstance(obj.get(k), str) and obj[k].strip()), "")
    gate = next((obj[k] for k in _GATE_FLAGS if isinstance(obj.get(k), bool)), None)
    if gate is False or (gate is None and _GATE_MESSAGE.match(msg)):
        return "not evaluated: the harness's static check refused the kernel" + (
            f" ({msg.strip()[:200]})" if msg else ""
        )
    m = _INTERRUPTED.search(msg.rstrip())
    if m:
        return f"not evaluated: the evaluation was stopped ({m.group(0).strip()}) before it gave a result"
    return None


#: an evaluation record's exception name and its message or log, as kernel-generation harnesses write them beside
#: ``compiled`` / ``runnable`` flags (``{"runnable": false, "error_type": "CompilationError", "message": BUILD LOG}``,
#: ``{"compiled": true, "correct": false, "error": "..."}``)
_EVAL_NAMES = ("error_type", "error_name", "exception", "exception_type")
_EVAL_TEXTS = ("message", "error", "error_message", "error_msg", "traceback", "feedback")
#: a harness's message that opens with its verdict (an agent's feedback: "SUCCESS - Score (Speedup): 0.42x", "PASSED:
#: all 5 trials"), with no failure said after it on that line
_LEADING_PASS = re.compile(r"^\s*(?:SUCCESS|PASS(?:ED)?|CORRECT)\b(?![^\n]*\bFAIL)")
#: a kernel agent's record of its whole search says ``"success": true`` (its best kernel compiled and passed)
_EVAL_VERDICTS = ("correct", "correctness", "passed", "test_passed", "tests_passed", "success")
_EVAL_FLAGS = ("compiled", "runnable", "correct", "correctness", "passed", "test_passed", "tests_passed", "success")
#: where a record nests its error as an object (``"final_error": {"type": "numerical", "message": "..."}``)
_EVAL_ERROR_OBJECTS = ("final_error", "error", "failure", "last_error")
#: a record's own verdict word (``"verdict": "FAIL_MUTATION"``) and a failure it names without a message
#: (``"failure_reason": "timeout"``)
_VERDICT_WORD = re.compile(r"^(PASS|FAIL)\w*$", re.I)
#: a harness's note that the kernel wrote into one of its inputs (``"mutates_y": true``)
_MUTATES = re.compile(r"^mutates_\w+$")


def _flat_evaluation(obj: Mapping[str, Any]) -> dict[str, Any]:
    """An evaluation record with its nested parts as the flat fields :func:`_evaluation` reads: an error object's type
    and message, a correctness object's verdict and reasons, a verdict word, a failure reason, an input it mutated.

    >>> _flat_evaluation({"final_error": {"type": "numerical", "message": "max_error = 4.79"}, "test_passed": False})
    {'final_error': None, 'test_passed': False, 'error_type': 'numerical', 'message': 'max_error = 4.79'}
    >>> f = _flat_evaluation({"correctness": {"pass": False, "reasons": ["rmse 0.035 > 0.01"]}, "verdict": "FAIL_X"})
    >>> f["correctness"], f["passed"], f["message"]
    (False, False, 'verdict: FAIL_X\\nrmse 0.035 > 0.01')
    """
    out: dict[str, Any] = dict(obj)
    notes: list[str] = []
    for key in _EVAL_ERROR_OBJECTS:
        err = obj.get(key)
        if isinstance(err, Mapping):
            out[key] = None
            kind = next((err[k] for k in ("type", "name", "error_type") if isinstance(err.get(k), str)), None)
            text = next((err[k] for k in ("message", "msg", "detail", "error") if isinstance(err.get(k), str)), None)
            if kind and not any(isinstance(obj.get(k), str) for k in _EVAL_NAMES):
                out["error_type"] = kind
            if text:
                notes.append(text)
            break
    check = obj.get("correctness")
    if isinstance(check, Mapping) and isinstance(check.get("pass"), bool):
        out["correctness"] = check["pass"]
        if not check["pass"]:
            notes += [str(r) for r in check.get("reasons") or [] if isinstance(r, (str, int, float))]
    verdict = obj.get("verdict")
    if isinstance(verdict, str) and (m := _VERDICT_WORD.match(verdict.strip())):
        out["passed"] = m.group(1).upper() == "PASS"
        if not out["passed"]:
            notes.insert(0, f"verdict: {verdict.strip()}")
    reason = obj.get("failure_reason")
    if isinstance(reason, str) and reason.strip():
        notes.insert(0, f"failure_reason: {reason.strip()}")
    notes += [f"{k}: True" for k, v in obj.items() if v is True and _MUTATES.match(k)]
    if notes and not any(isinstance(obj.get(k), str) and obj[k].strip() for k in _EVAL_TEXTS):
        out["message"] = "\n".join(notes)
    return out


#: where a run's record nests the harness's own result (``{"cli": ..., "harness_result": {"verdict": "PASS", ...}}``)
_NESTED_RESULTS = ("harness_result", "eval_result", "evaluation", "result")


#: a report's ``status`` that says the check passed (with its ``error`` field empty)
_STATUS_PASSED = ("ok", "success", "succeeded", "passed", "pass")
#: flashinfer-bench's EvaluationStatus (flashinfer_bench/data/trace.py): one verdict per workload, PASSED or the
#: failure it names; beside it the evaluation's ``log`` (the run's output) and ``correctness`` (its figures)
_FIB_STATUSES = (
    "PASSED", "INCORRECT_SHAPE", "INCORRECT_NUMERICAL", "INCORRECT_DTYPE", "RUNTIME_ERROR", "COMPILE_ERROR", "TIMEOUT",
)  # fmt: skip
_FIB_FIGURES = ("max_absolute_error", "max_relative_error", "max_abs_error", "max_rel_error")
#: a record's own verdict on its output beside a passing ``status`` (``"correctness_check": "Passed"``,
#: ``"metrics": {"correctness": 1.0}``), looked for one level down as well
_CHECK_KEYS = ("correctness_check", "correctness", "correct", "passed")


def _fib_evaluation(obj: Mapping[str, Any], status: str) -> tuple[str, bool]:
    """A flashinfer-bench evaluation (or a record that keeps its status): its log, its status and its correctness
    figures as the collectors read them, and whether it passed.

    >>> _fib_evaluation({"status": "TIMEOUT", "correctness": {"max_absolute_error": 2.5}}, "TIMEOUT")
    ('status: TIMEOUT\\nmax_absolute_error: 2.5\\n', False)
    >>> _fib_evaluation({"status": "PASSED", "log": ""}, "PASSED")
    ('status: PASSED\\n', True)
    >>> _fib_evaluation({"status": "RUNTIME_ERROR", "error": "CUDA error: an illegal memory access"}, "RUNTIME_ERROR")[0]
    'CUDA error: an illegal memory access\\nstatus: RUNTIME_ERROR\\n'
    """
    texts = [obj.get(k) for k in ("log", *_EVAL_TEXTS)]  # the run's output, and a message a harness keeps beside it
    lines = list(dict.fromkeys(t.rstrip("\n") for t in texts if isinstance(t, str) and t.strip()))
    lines.append(f"status: {status}")
    nested = obj.get("correctness")
    figures: Mapping[str, Any] = nested if isinstance(nested, Mapping) else obj
    lines += [f"{k}: {figures[k]}" for k in _FIB_FIGURES if isinstance(figures.get(k), (int, float, str))]
    return "".join(f"{line}\n" for line in lines), status == "PASSED"


def _check_says_passed(obj: Mapping[str, Any]) -> bool:
    """Whether the record's own correctness verdict, in it or one level down, says passed, and none says otherwise.

    >>> _check_says_passed({"metrics": {"correctness": 1.0}, "artifacts": {"correctness_check": "Passed"}})
    True
    >>> _check_says_passed({"metrics": {"correctness": 0.0}}), _check_says_passed({"score": 1.0})
    (False, False)
    """
    said: list[bool] = []
    for part in (obj, *(v for v in obj.values() if isinstance(v, Mapping))):
        for key in _CHECK_KEYS:
            v = part.get(key)
            if isinstance(v, bool) or (isinstance(v, (int, float)) and v in (0, 1)):
                said.append(bool(v))
            elif isinstance(v, str) and v.strip():
                said.append(v.strip().lower() in (*_STATUS_PASSED, "true"))
    return bool(said) and all(said)


def _json_string_evaluation(obj: Mapping[str, Any]) -> tuple[str, bool] | None:
    """The evaluation record a record keeps as a JSON string in one of its fields (an agent's history that stores its
    evaluator's answer as text: ``"reason": "{\\n  \\"status\\": \\"validation_failed\\", ..."``), read as
    :func:`_evaluation` reads a record; None when no field holds one.

    >>> _json_string_evaluation({"score": 0.0, "reason": '{"status": "INCORRECT_NUMERICAL", "log": ""}'})
    ('status: INCORRECT_NUMERICAL\\n', False)
    >>> _json_string_evaluation({"reason": "{not json"}) is None
    True
    """
    for key, value in obj.items():
        if not (isinstance(value, str) and value.lstrip().startswith("{") and value.rstrip().endswith("}")):
            continue
        if str(key) in CODE_FIELDS + ANSWER_FIELDS or _CODE_KEY.search(str(key)) or len(value) > READ_LIMIT:
            continue
        try:
            inner = json.loads(value)
        except ValueError:
            continue
        read = (_evaluation(inner) or _fields_with_failure(inner)) if isinstance(inner, dict) else None
        if read is not None:
            return read
    return None


def _evaluation(obj: Mapping[str, Any]) -> tuple[str, bool] | None:
    """An evaluation record with no log fields: (the text the collectors read, whether it says the kernel passed),
    or None when it is not one.  The message (a build log, an exception's text) comes back as written, then the
    error's name and the record's flags as ``key: value`` lines; a record without an error passes when a verdict flag says so (``correct: true``), or
    when it ran and its own comparison's ``max_abs_err`` is within its ``tolerance``.

    >>> _evaluation({"runnable": False, "error_type": "CompilationError", "message": "invalid syntax (k.py, line 2)"})
    ('invalid syntax (k.py, line 2)\\nerror_type: CompilationError\\nrunnable: False\\n', False)
    >>> _evaluation({"runnable": True, "tolerance": 0.001, "max_abs_err": 0.0, "score": 0.01})[1]
    True
    >>> _evaluation({"compiled": True, "correct": True, "error": None})
    ('compiled: True\\ncorrect: True\\n', True)
    >>> _evaluation({"success": True, "best_speedup": 1.003, "best_kernel": "..."})
    ('success: True\\n', True)
    >>> _evaluation({"status": "ok", "error": None, "num_shapes": 5})  # a harness's report: its status, no error
    ('status: ok\\n', True)
    >>> _evaluation({"attempt": 7, "feedback": "SUCCESS - Score (Speedup): 0.42x"})[1]
    True
    >>> _evaluation({"name": "x"}) is None
    True
    """
    nested = next((obj[k] for k in _NESTED_RESULTS if isinstance(obj.get(k), Mapping)), None)
    if nested is not None and not any(k in obj for k in (*_EVAL_NAMES, *_EVAL_TEXTS, *_EVAL_FLAGS)):
        return _evaluation(nested)
    status = obj.get("status")
    if isinstance(status, str) and status in _FIB_STATUSES:
        return _fib_evaluation(obj, status)
    obj = _flat_evaluation(obj)
    name = next((str(obj[k]).strip() for k in _EVAL_NAMES if isinstance(obj.get(k), str) and obj[k].strip()), "")
    msg = next((str(obj[k]) for k in _EVAL_TEXTS if isinstance(obj.get(k), str) and obj[k].strip()), "")
    flags = {k: obj[k] for k in _EVAL_FLAGS if isinstance(obj.get(k), bool)}
    if not (name or msg or flags):
        status = obj.get("status")
        if (
            isinstance(status, str)
            and status.strip().lower() in _STATUS_PASSED
            and (("error" in obj and not obj["error"]) or _check_says_passed(obj))
        ):
            # a harness's report that says it passed and holds no error, or whose own correctness check says passed
            return f"status: {status.strip()}\n", True
        return _json_string_evaluation(obj)
    # the harness's own name for its failure (a pipeline's "CompilationError" for any build that failed) is a field,
    # not an exception of the compiler: the message says which compiler, in its own words
    lines = [msg.rstrip("\n")] if msg else []
    lines += [f"{k}: {v}" for k, v in (("error_type", name), *flags.items()) if v != ""]
    text = "".join(f"{line}\n" for line in lines)
    if msg and not name and not flags and _LEADING_PASS.match(msg):
        return text, True
    if name or msg:
        return text, False
    said = [obj[k] for k in _EVAL_VERDICTS if isinstance(obj.get(k), bool)]
    err, tol = obj.get("max_abs_err"), obj.get("tolerance")
    if said:
        return text, all(said) and flags.get("compiled", True) is not False
    if obj.get("runnable") is True and isinstance(err, (int, float)) and isinstance(tol, (int, float)):
        return text + f"max_abs_err: {err}\ntolerance: {tol}\n", bool(err <= tol)
    return text, False


def jsonl_lines(fh: BinaryIO, limit: int = READ_LIMIT) -> Iterator[bytes | int]:
    """The lines of a JSON Lines stream one at a time; a line longer than ``limit`` bytes is skipped
    in pieces and comes back as its size (an int), so no line is ever held whole beyond the limit."""
    while raw := fh.readline(limit + 1):
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw
            continue
        size = len(raw)
        while more := fh.readline(_CHUNK):
            size += len(more)
            if more.endswith(b"\n"):
                break
        yield size


def read_jsonl(lines: Iterable[bytes | int], *, name: str) -> Iterator[InputRecord]:
    """One record per non-blank line, in order; a line that is not a JSON object becomes an error record."""
    for n, raw in enumerate(lines, 1):
        rid, origin = f"{Path(name).stem}:{n}", f"{name}:{n}"
        if isinstance(raw, int):
            yield InputRecord(
                id=rid, origin=origin, error=f"line {n}: {raw:,} bytes, over the size limit for one record"
            )
            continue
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8", errors="strict"))
        except UnicodeDecodeError as exc:
            yield InputRecord(id=rid, origin=origin, error=f"line {n}: not UTF-8 ({exc.reason})")
            continue
        except json.JSONDecodeError as exc:
            yield InputRecord(id=rid, origin=origin, error=f"line {n}, column {exc.colno}: invalid JSON: {exc.msg}")
            continue
        if isinstance(obj, dict) and "id" not in obj and any(k in obj for k in _TASK_KEYS):
            # a record named by the task and the sample it evaluated: that name, where it has both
            rid = _evaluation_id(obj, rid, Path(name).stem) if any(k in obj for k in _SAMPLE_KEYS) else rid
        yield record_from_mapping(obj, default_id=rid, origin=origin)


def _kb_samples(v: Any) -> list[dict] | None:
    """One KernelBench problem's value: its samples, or None when it is not one."""
    if isinstance(v, list) and all(isinstance(s, dict) for s in v):
        samples = v
    elif isinstance(v, dict) and "compiled" in v:
        samples = [v]
    else:
        return None
    return samples if any("compiled" in s for s in samples) else None


#: Triton's CompilationError message begins ``at LINE:COL:`` and the kernel's source up to that line
#: (triton/compiler/errors.py ``_format_message``): a message in that form is one, named or not
_TRITON_AT = re.compile(r"at \d+:\d+:\n")
_TRITON_COMPILATION_ERROR = "triton.compiler.errors.CompilationError"
#: KernelBench's error fields: (the exception's ``module.Class`` name, its message), as its eval writes them
_KB_ERRORS = (("compilation_error_name", "compilation_error"), ("runtime_error_name", "runtime_error"))


def _kb_text(s: Mapping[str, Any]) -> str:
    """One KernelBench sample as the text the collectors read.

    Its error names come back as the line Python ends a traceback with (``NAME: message``): a
    ``runtime_error_name`` of ``triton.compiler.errors.CompilationError`` is a compile failure even
    when the message was cut to ``at 2:11:``.  Then ``compiled`` and ``correctness`` (a sample
    that did not compile says so), then every other metadata field as ``key: value``."""
    meta = s.get("metadata")
    meta = dict(meta) if isinstance(meta, Mapping) else ({"metadata": str(meta)} if meta else {})
    for key in ("runtime_error_name", "runtime_error", "compilation_error_name", "compilation_error",
                "correctness_issue", "max_difference", "avg_difference"):  # fmt: skip
        if key in s and key not in meta:  # some harness forks write them beside metadata
            meta[key] = s[key]
    lines, told = [], set()
    for name_key, msg_key in _KB_ERRORS:
        name = meta.get(name_key)
        msg = meta.get(msg_key)
        if not (isinstance(name, str) and name.strip()) and isinstance(msg, str) and _TRITON_AT.match(msg):
            name = _TRITON_COMPILATION_ERROR  # its own message format names it (older harnesses kept no name)
            meta[name_key] = name
        if isinstance(name, str) and name.strip():
            msg = meta.get(msg_key)
            lines.append(f"{name.strip()}: {msg}" if msg not in (None, "") else name.strip())
            told.add(msg_key)  # its message is in that line already
    lines += [f"{key}: {s[key]}" for key in ("compiled", "correctness") if key in s]
    # a recorded traceback starts its own line, as Python prints it (its frames then read as frames)
    lines += [f"{k}:\n{v}" if isinstance(v, str) and v.startswith(_TB_HEAD) else f"{k}: {v}"
              for k, v in meta.items() if k not in told and k not in CODE_FIELDS]  # fmt: skip
    return "\n".join(str(line) for line in lines) + "\n"


_TB_HEAD = "Traceback (most recent call last):"


#: what a KernelBench eval script writes for a sample it had no kernel file for: "Kernel not found for problem 28
#: sample 0" (a fork's eval_from_generations.py), "Kernel file not found" (KernelBench's scripts/eval_from_generations.py)
_KB_NO_KERNEL = re.compile(r"^kernel (?:file )?not found\b", re.I)


def kb_not_evaluated(s: Mapping[str, Any]) -> str | None:
    """Why a KernelBench sample has no result, when its record says the harness never evaluated it: the run skipped
    it (``skipped: true``, with the fork's ``skip_reason``) or found no kernel file for it (nothing was generated);
    None for a sample that ran, passed or failed.  Such a record is not a failure of any kernel.

    >>> kb_not_evaluated({"compiled": False, "metadata": {"skipped": True, "skip_reason": "hang_risk"}})
    'not evaluated: the harness skipped this sample (hang_risk)'
    >>> kb_not_evaluated({"compiled": False, "metadata": {"error": "Kernel not found for problem 28 sample 0"}})
    'not evaluated: Kernel not found for problem 28 sample 0 (no kernel was generated for it)'
    >>> kb_not_evaluated({"compiled": False, "metadata": {"compilation_error": "boom", "error": "Kernel file not found"}})
    """
    if s.get("compiled") or s.get("correctness"):
        return None
    meta = s.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    if any(meta.get(k) not in (None, "") for _, k in _KB_ERRORS) or meta.get("other_error"):
        return None  # the harness tried it: its error is the record
    if meta.get("skipped") is True:
        reason = meta.get("skip_reason")
        return "not evaluated: the harness skipped this sample" + (f" ({reason})" if reason else "")
    err = meta.get("error")
    if isinstance(err, str) and _KB_NO_KERNEL.match(err.strip()):
        return f"not evaluated: {err.strip()} (no kernel was generated for it)"
    return None


def _kb_records(problem: str, samples: list[dict], name: str) -> Iterator[InputRecord]:
    for s in samples:
        sid = s.get("sample_id", 0)
        yield InputRecord(
            id=f"problem_{problem}/sample_{sid}",
            text=_kb_text(s),
            origin=f"{name}[{problem}][{sid}]",
            passed=bool(s.get("compiled")) and bool(s.get("correctness")),
            code=_code(s, s.get("metadata")),
            error=kb_not_evaluated(s),
        )


#: a sample's own id in the flat lists some KernelBench forks write (Kernel-Coder's ``evaluation_id``)
_KB_SAMPLE_ID = re.compile(r"level_(\d+)_problem_(\d+)(?:_epoch_(\d+))?_sample_(\d+)")


def kb_sample_key(problem: str, epoch: str | None, sample: str) -> tuple[str, str]:
    """(problem, sample) as record ids name them: an epoch other than 0 goes into the sample's name."""
    return problem, (sample if epoch in (None, "0") else f"e{epoch}_{sample}")


def _kb_listed(s: Any) -> tuple[str, str] | None:
    """(problem, sample) of one entry of a flat KernelBench result list, or None when it is not one."""
    if not isinstance(s, dict) or "compiled" not in s:
        return None
    for key in ("evaluation_id", "solution_id"):
        m = _KB_SAMPLE_ID.fullmatch(str(s.get(key, "")))
        if m:
            return kb_sample_key(m.group(2), m.group(3), m.group(4))
    return None


def _kb_listed_record(s: dict, key: tuple[str, str], origin: str) -> InputRecord:
    """One entry of a flat KernelBench result list, as the record its (problem, sample) names."""
    return next(_kb_records(key[0], [{**s, "sample_id": key[1]}], origin))


def _kb_list_records(data: list[Any], name: str) -> Iterator[InputRecord]:
    for i, s in enumerate(data):
        key = _kb_listed(s)
        if key is not None:  # read_kernelbench checked every entry
            yield _kb_listed_record(s, key, f"{name}[{i}]")


def _search_round(data: Any) -> list[dict] | None:
    """The kernels of a search round file that evaluates KernelBench samples (``{"kernels": [{"kernel_id", "code",
    "eval_result": {compiled, correctness, metadata}}]}``), or None when it is not one."""
    kernels = data.get("kernels") if isinstance(data, dict) else None
    if not isinstance(kernels, list) or not kernels:
        return None
    ok = all(isinstance(k, dict) and isinstance(k.get("eval_result"), dict) and "compiled" in k["eval_result"]
             for k in kernels)  # fmt: skip
    return kernels if ok else None


def _round_records(kernels: list[dict], name: str) -> Iterator[InputRecord]:
    for i, k in enumerate(kernels):
        ev = k["eval_result"]
        yield InputRecord(
            id=str(k.get("kernel_id") or f"kernel_{i}"),
            text=_kb_text(ev),
            origin=f"{name}[kernels][{i}]",
            passed=bool(ev.get("compiled")) and bool(ev.get("correctness")),
            code=k["code"] if isinstance(k.get("code"), str) and k["code"].strip() else _code(ev, ev.get("metadata")),
        )


#: what an AIDE-style tree search's journal node holds (aideml's Journal, which KernelBench's kernel search writes as
#: ``journal.json``): the code tried, its terminal output, the exception's type and info, whether it was buggy
_AIDE_NODE_KEYS = frozenset({"code", "_term_out", "is_buggy"})


def _aide_nodes(data: Any) -> list[dict] | None:
    """The nodes of an AIDE-style search journal (``{"nodes": [{"code", "_term_out", "exc_type", "exc_info",
    "is_buggy", ...}], "node2parent": {...}}``), or None when ``data`` is not one."""
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, list) or not nodes:
        return None
    return nodes if all(isinstance(n, dict) and n.keys() >= _AIDE_NODE_KEYS for n in nodes) else None


def _aide_records(nodes: list[dict], name: str, stem: str) -> Iterator[InputRecord]:
    """One record per node: its terminal output and exception as the text, its code as the kernel; a node the
    search did not mark buggy is a pass."""
    for i, node in enumerate(nodes):
        out = node.get("_term_out")
        lines = [str(x) for x in out] if isinstance(out, list) else ([str(out)] if out else [])
        exc = node.get("exc_type")
        if exc:
            info = node.get("exc_info")
            lines.append(f"{exc}: {info}" if info else str(exc))
        step = node.get("step", i)
        code = node.get("code")
        yield InputRecord(
            id=f"{stem}/step_{step}",
            text="\n".join(lines),
            origin=f"{name}[nodes][{i}]",
            passed=node.get("is_buggy") is False,
            code=code if isinstance(code, str) and code.strip() else None,
        )


def read_kernelbench(data: Any, *, name: str) -> Iterator[InputRecord] | None:
    """KernelBench eval_results.json: {problem_id: [ {sample_id, compiled, correctness, metadata, ...} ]}, the
    flat list some forks write: [ {evaluation_id: "level_1_problem_18_epoch_0_sample_4", compiled, ...} ], or a
    kernel search's round file whose kernels carry their code and KernelBench's eval_result."""
    if isinstance(data, list) and data and all(_kb_listed(s) is not None for s in data):
        return _kb_list_records(data, name)
    kernels = _search_round(data)
    if kernels is not None:
        return _round_records(kernels, name)
    if not isinstance(data, dict) or not data:
        return None
    problems = {k: _kb_samples(v) for k, v in data.items()}
    if any(s is None for s in problems.values()):
        return None
    return (rec for problem, samples in problems.items() for rec in _kb_records(problem, samples or [], name))


def _parse_error(exc: Exception, suffix: str) -> str:
    line = getattr(getattr(exc, "problem_mark", None), "line", None)
    line = (line + 1) if line is not None else getattr(exc, "lineno", None)
    where = f" at line {line}" if line else ""
    return f"cannot parse {suffix[1:]}{where}: {exc}"


def load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, read with libyaml's loader where PyYAML has it (the same data, read ten times
    faster); a text it refuses is read again by PyYAML's own, whose words say what is wrong."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", None)
    if loader is not None:
        try:
            return yaml.load(text, Loader=loader)
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def read_structured(path: Path, data: bytes, name: str) -> Iterator[InputRecord]:
    """A .json (KernelBench results, a list of records, one record) or .yaml case list, read whole."""
    try:
        obj = load_yaml(decode(data)) if path.suffix in (".yaml", ".yml") else json.loads(decode(data))
    except Exception as exc:
        yield InputRecord(id=path.stem, origin=name, error=_parse_error(exc, path.suffix))
        return
    kb = read_kernelbench(obj, name=name)
    if kb is not None:
        yield from kb
        return
    nodes = _aide_nodes(obj)
    if nodes is not None:
        yield from _aide_records(nodes, name, path.stem)
        return
    if isinstance(obj, dict) and isinstance(obj.get("reports"), list):
        obj = obj["reports"]
    keyed = _keyed_evaluations(obj)
    if keyed is not None:
        for key, item in keyed.items():
            yield record_from_mapping(item, default_id=str(key), origin=f"{name}[{key}]")
        return
    wrapped = _wrapped_evaluations(obj)
    if wrapped is not None:
        key, items = wrapped
        for i, item in enumerate(items):
            rid = _evaluation_id(item, f"{path.stem}[{key}][{i}]", path.stem)
            yield record_from_mapping(item, default_id=rid, origin=f"{name}[{key}][{i}]")
        return
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            holds_list = isinstance(item, dict) and any(isinstance(v, list) for v in item.values())
            inner = _wrapped_evaluations(item) if holds_list else None
            if inner is None:
                yield record_from_mapping(item, default_id=f"{path.stem}[{i}]", origin=f"{name}[{i}]")
                continue
            key, items = inner  # a list of rounds, each with its records in one list
            for j, record in enumerate(items):
                rid = _evaluation_id(record, f"{path.stem}[{i}][{key}][{j}]", path.stem)
                yield record_from_mapping(record, default_id=rid, origin=f"{name}[{i}][{key}][{j}]")
        return
    if isinstance(obj, dict):
        yield record_from_mapping(obj, default_id=path.stem, origin=name)
        return
    yield InputRecord(id=path.stem, origin=name, error=f"unsupported {path.suffix} content: {type(obj).__name__}")


def read_large_json(path: Path, fh: BinaryIO, name: str) -> Iterator[InputRecord]:
    """A .json too large to hold, one item at a time: a list of records, KernelBench results, evaluation records
    keyed by task, or a run's summary whose records are one list (``{"model": ..., "results": [...]}``)."""
    from diagnose.jsonstream import JSONStreamError, json_entries

    other = False
    kind = ""  # list, or what the top-level object is from its first telling value: kernelbench | keyed | wrapped
    try:
        for where, value in json_entries(fh):
            key = where[0]
            if isinstance(key, int):
                kind = "list"
                listed = _kb_listed(value)
                if listed is not None:
                    yield _kb_listed_record(value, listed, f"{name}[{key}]")
                    continue
                yield record_from_mapping(value, default_id=f"{path.stem}[{key}]", origin=f"{name}[{key}]")
                continue
            if len(where) == 2:  # an item of a list under the top-level object
                if kind == "kernelbench" or (
                    kind == "" and not other and isinstance(value, dict) and "compiled" in value
                ):
                    kind = "kernelbench"  # a KernelBench problem's samples
                    if isinstance(value, dict):
                        yield from _kb_records(key, [value], name)
                    else:
                        yield InputRecord(
                            id=f"problem_{key}", origin=f"{name}[{key}]", error="not a KernelBench sample"
                        )
                    continue
                if kind in ("", "wrapped") and isinstance(value, dict) and _evaluation(value) is not None:
                    kind = "wrapped"
                elif kind != "wrapped" or not isinstance(value, dict):
                    continue  # a list of something else: the run's settings, its problems' names
                rid = _evaluation_id(value, f"{path.stem}[{key}][{where[1]}]", path.stem)
                yield record_from_mapping(value, default_id=rid, origin=f"{name}[{key}][{where[1]}]")
                continue
            samples = _kb_samples(value)
            other = other or samples is None  # a value no KernelBench problem has: a summary's settings
            if kind in ("", "kernelbench") and samples is not None:
                kind = "kernelbench"
                yield from _kb_records(key, samples, name)
            elif kind in ("", "keyed") and isinstance(value, dict) and _evaluation(value) is not None:
                kind = "keyed"
                yield record_from_mapping(value, default_id=str(key), origin=f"{name}[{key}]")
            elif kind == "kernelbench":
                yield InputRecord(id=f"problem_{key}", origin=f"{name}[{key}]", error="not a KernelBench problem entry")
            elif kind == "keyed":
                yield InputRecord(id=str(key), origin=f"{name}[{key}]", error="not an evaluation record")
        if not kind:
            yield InputRecord(
                id=path.stem,
                origin=name,
                error=f"{path.stat().st_size:,} bytes: too large to read as one record (large inputs must be JSON "
                "Lines, a JSON list, KernelBench results, or records in one list or keyed by task)",
            )
    except (JSONStreamError, RecursionError) as exc:  # RecursionError: nesting deeper than json decodes
        yield InputRecord(id=path.stem, origin=name, error=f"cannot parse json: {exc or type(exc).__name__}")


def read_path(path: Path, *, base: Path | None = None, limit: int | None = None) -> Iterator[InputRecord]:
    """Every record of one file, streamed: JSON Lines line by line, a large .json item by item, a
    text log whole (head + tail past ``limit`` bytes, with a warning)."""
    limit = limit or READ_LIMIT
    name = str(path.relative_to(base)) if base and path.is_relative_to(base) else str(path)
    suffix = path.suffix.lower()
    try:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if suffix in (".jsonl", ".ndjson"):
                yield from read_jsonl(jsonl_lines(fh, limit), name=name)
            elif suffix == ".json" and size > limit:
                yield from read_large_json(path, fh, name)
            elif suffix in (".yaml", ".yml") and size > limit:
                yield InputRecord(
                    id=path.stem,
                    origin=name,
                    error=f"{size:,} bytes: too large for a YAML case file (write large batches as JSON Lines)",
                )
            elif suffix in (".json", ".yaml", ".yml"):
                yield from read_structured(path, fh.read(), name)
            else:
                data, total, cut = read_head_tail(fh, limit)
                yield from text_records(name if base else path.name, data, name, truncated=cut, size=total)
    except OSError as exc:
        yield InputRecord(id=path.name, origin=name, error=f"cannot read: {exc.strerror or exc}")


class _Prefixed(io.RawIOBase):
    """A stream that first gives back bytes already read from it (stdin cannot seek)."""

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self._prefix = memoryview(prefix)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._prefix:
            n = min(len(b), len(self._prefix))
            b[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._rest.read(len(b))
        b[: len(data)] = data
        return len(data)


def read_stdin(stream: Any = None, *, limit: int | None = None) -> Iterator[InputRecord]:
    """Standard input: JSON Lines (line by line) when it starts as JSON objects, else one text log."""
    limit = limit or READ_LIMIT
    stream = stream if stream is not None else sys.stdin.buffer
    peek = _read_upto(stream, _PEEK)
    whole = io.BufferedReader(_Prefixed(peek, stream), buffer_size=_CHUNK)
    lines = peek.splitlines()
    if len(peek) == _PEEK:
        lines = lines[:-1]  # the last may be cut
    if peek.lstrip()[:1] == b"{" and all(not ln.strip() or ln.strip().startswith(b"{") for ln in lines[:50]):
        yield from read_jsonl(jsonl_lines(whole, limit), name="<stdin>")
    else:
        data, total, cut = read_head_tail(whole, limit)
        yield from text_records("stdin", data, "<stdin>", truncated=cut, size=total)


#: a generated kernel in a KernelBench run directory (scripts/generate_samples.py names them so)
_KB_KERNEL = re.compile(r"level_(\d+)_problem_(\d+)(?:_epoch_(\d+))?_sample_(\d+)_kernel\.py")


def kernelbench_run(path: Path) -> bool:
    """A KernelBench run directory (``runs/NAME``): ``eval_results.json`` beside generated kernels."""
    return (path / "eval_results.json").is_file() and any(_KB_KERNEL.fullmatch(f.name) for f in path.iterdir())


def read_kernelbench_run(
    path: Path, *, limit: int | None = None, base: Path | None = None, others: bool = True
) -> Iterator[InputRecord]:
    """A KernelBench run directory: each evaluated sample from ``eval_results.json``, naming its generated
    kernel; the kernels are sources (the code that was run), never read as logs.  A kernel with no result
    comes back as a record saying so; other files (logs a user put there) are read as usual unless
    ``others`` is false (the user named ``eval_results.json`` itself).  ``base``: the directory the user
    named, when the run lies below it (record ids then start with the run's path under it)."""
    prefix = f"{path.relative_to(base)}/" if base and base != path and path.is_relative_to(base) else ""
    kernels: dict[tuple[str, str], str] = {}
    generated: set[str] = set()
    for f in sorted(path.iterdir()):
        m = _KB_KERNEL.fullmatch(f.name)
        if m:
            kernels[kb_sample_key(m.group(2), m.group(3), m.group(4))] = f.name
        if f.name.startswith("level_") and "_problem_" in f.name:
            generated.add(f.name)  # the kernels and what generation left beside them (prompts, raw outputs)
    seen: set[tuple[str, str]] = set()
    for rec in read_path(path / "eval_results.json", base=base or path, limit=limit):
        problem, _, sample = rec.id.partition("/")
        key = (problem.removeprefix("problem_"), sample.removeprefix("sample_"))
        seen.add(key)
        if key in kernels:
            rec = dataclasses.replace(
                rec, origin=f"{rec.origin} (kernel {kernels[key]})", source=str(path / kernels[key])
            )
        yield dataclasses.replace(rec, id=prefix + rec.id) if prefix else rec
    for key, name in sorted(kernels.items()):
        if key not in seen:
            yield InputRecord(id=f"{prefix}problem_{key[0]}/sample_{key[1]}", origin=prefix + name,
                              source=str(path / name),
                              error="a generated kernel with no result in eval_results.json (not evaluated)")  # fmt: skip
    if not others:
        return
    for f in sorted(path.rglob("*")):
        rel = f.relative_to(path)
        if not f.is_file() or f.name == "eval_results.json" or f.name in generated or f.suffix == ".py":
            continue
        if any(part.startswith(".") for part in rel.parts):
            continue
        yield from read_path(f, base=base or path, limit=limit)


def _read_directory(path: Path, *, limit: int | None) -> Iterator[InputRecord]:
    """Every file below a directory, sorted; a KernelBench run directory found below it is read as one
    (its generated kernels are sources, not logs), once, where its ``eval_results.json`` falls in order."""
    files = sorted(
        f
        for f in path.rglob("*")
        if f.is_file() and not any(part.startswith(".") for part in f.relative_to(path).parts)
    )
    if not files:
        yield InputRecord(id=str(path), origin=str(path), error="directory holds no files")
    runs = {f.parent for f in files if f.name == "eval_results.json" and kernelbench_run(f.parent)}
    for f in files:
        run = next((d for d in (f.parent, *f.parent.parents) if d in runs), None)
        if run is None:
            yield from read_path(f, base=path, limit=limit)
        elif f == run / "eval_results.json":
            yield from read_kernelbench_run(run, limit=limit, base=path)


def read_inputs(paths: list[str], *, stdin: Any = None, limit: int | None = None) -> Iterator[InputRecord]:
    """Every record from every path, in order (``-`` is stdin; directories are walked, sorted).

    Every input record yields exactly one InputRecord whatever the file's size; memory stays bounded
    by ``limit`` (default :data:`READ_LIMIT`: the most read of one text log, one JSON line or one
    structured file read whole)."""
    for p in paths:
        if p == "-":
            yield from read_stdin(stdin, limit=limit)
            continue
        path = Path(p)
        if path.is_dir() and kernelbench_run(path):
            yield from read_kernelbench_run(path, limit=limit)
        elif path.is_dir():
            yield from _read_directory(path, limit=limit)
        elif path.name == "eval_results.json" and path.is_file() and kernelbench_run(path.parent):
            # the results file of a run directory: its samples with their kernels, not the other files there
            yield from read_kernelbench_run(path.parent, limit=limit, base=path.parent, others=False)
        elif path.exists():
            yield from read_path(path, limit=limit)
        else:
            yield InputRecord(id=p, origin=p, error=f"no such file or directory: {p}")


def count_hint(paths: list[str], *, exact_below: int = 256 << 20) -> int | None:
    """A cheap total for the progress bar and the choice of worker processes (None when unknown):
    files in the paths; the lines of a JSON Lines file, counted below ``exact_below`` bytes and
    estimated from its first MiB above."""
    total = 0
    for p in paths:
        if p == "-":
            return None
        path = Path(p)
        if path.is_dir():
            total += sum(len(files) for _, _, files in os.walk(path))
        elif path.suffix in (".jsonl", ".ndjson") and path.is_file():
            size = path.stat().st_size
            with path.open("rb") as fh:
                if size < exact_below:
                    total += sum(1 for line in fh if line.strip())
                else:
                    head = fh.read(1 << 20)
                    total += max(1, size * head.count(b"\n") // max(len(head), 1))
        else:
            total += 1
    return total
