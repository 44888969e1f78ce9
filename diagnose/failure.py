"""Is there a failure at all?  The signs that a log records something that went wrong.

``kdiag classify`` answers ``no-failure`` for a log in which no rule fired *and* nothing failed;
when something failed and no rule decides, the answer stays ``unknown``.  So this module errs
towards "failed": any one sign below is enough, and the healthy exceptions are narrow.

A failure is

- the process ended badly: a non-zero exit status, a signal, a timeout, the OOM killer;
- an exception (a Python traceback, or a bare ``SomeError: ...`` line);
- a collector fact that denotes an error: a CUDA error or device-side assertion, an out-of-memory
  report, a message of a failure family of the tools' own catalogue (``CUBLAS_STATUS_EXECUTION_FAILED``
  quoted alone, an issue title that is only the error), a Triton error, compiler errors (or a fatal ptxas message), sanitizer errors, leaks or
  race hazards, an environment problem (driver, library, device), a numerical mismatch;
- a line in one of the shapes tools print failures in (:mod:`diagnose.failure_lines`: error and fatal
  severities of the logging formats (TensorRT's and ONNX Runtime's loggers included), fatal-error
  reports, exceptions and tracebacks, signal deaths, signal handlers' reports and non-zero exit codes,
  compute-sanitizer error records, library status enums, quoted compiler diagnostics, failed
  statements, test frameworks' failure reports, hangs, a printed NaN, ``WRONG ANSWER``, a result
  printed beside the value the text expected) that is not clearly healthy: a count of zero (``0 errors``, ``error_count=0``),
  a measured error (``max abs error: 0.0``), a warning or an INFO-level log line that only mentions
  the word (``-Werror`` is no match to begin with).

What is *not* a failure by itself: warnings of every kind, ``ptxas -v`` resource figures
(registers, spills), an ``nvidia-smi`` table, MIG or compute-mode information, configs the
Triton autotuner skipped before it selected a best one, outputs equal within tolerance.

>>> from diagnose.collectors import collect
>>> failure_signs(collect("ptxas info    : Used 10 registers, used 0 barriers\\n1 passed in 0.77s\\n"))
()
>>> failure_signs(collect("========= ERROR SUMMARY: 0 errors\\n"))
()
>>> failure_signs(collect("max abs error: 0.0\\nvector add: OK\\n"))
()
>>> failure_signs(collect("a.cu(3): error: identifier \\"x\\" is undefined\\n"))
('compiler errors: 1',)
>>> failure_signs(collect("FAILED tests/test_k.py::test_tail - assert 0.5 == 0.0\\n"))
('line 1: FAILED tests/test_k.py::test_tail - assert 0.5 == 0.0',)
"""

from __future__ import annotations

import re

from diagnose.evidence import Evidence
from diagnose.failure_lines import failure_lines, has_failure_line
from diagnose.log_records import low_record_tail, low_severity

#: environment tags that describe the machine without saying anything failed
_ENV_INFORMATIONAL = frozenset({"mig", "exclusive-compute-mode", "compute-mode-prohibited"})


def failure_signs(ev: Evidence, *, limit: int = 3) -> tuple[str, ...]:
    """Why ``ev`` records a failure: one short reason per sign (the first few), empty when none."""
    signs = _fact_signs(ev)
    if not signs:
        signs = _line_signs(ev.log.text, limit)
    return tuple(signs[:limit])


def failure_seen(ev: Evidence, *, limit: int = 3) -> tuple[str, ...]:
    """What an ``unknown`` report shows of the failure: the signs of the evidence and the failure lines
    of the log (both, unlike :func:`failure_signs`, which stops at the first kind that answers)."""
    signs = _fact_signs(ev)[:limit]
    return tuple(signs + _line_signs(ev.log.text, limit))


def has_failure(ev: Evidence) -> bool:
    """``bool(failure_signs(ev))``, the failure lines looked for only as far as one."""
    return bool(_fact_signs(ev)) or has_failure_line(ev.log.text)


def _fact_signs(ev: Evidence) -> list[str]:
    out: list[str] = []
    x = ev.exit
    if x is not None:
        if x.code not in (None, 0):
            out.append(f"exit status {x.code}")
        if x.signal:
            out.append(f"signal {x.signal}")
        if x.timed_out:
            out.append("timed out")
        if x.oom_killed:
            out.append("killed by the OOM killer")
        if x.core_dumped and not x.signal:
            out.append("core dumped")
    if ev.py is not None and ev.py.exc_type:
        out.append(f"exception {ev.py.exc_qualname or ev.py.exc_type}")
    if ev.cuda is not None and (ev.cuda.error or ev.cuda.errors or ev.cuda.device_assert):
        out.append(
            "device-side assertion" if ev.cuda.device_assert and not ev.cuda.error else f"CUDA error {ev.cuda.error}"
        )
    if ev.oom is not None and ev.oom.kind:
        out.append(f"out of memory ({ev.oom.kind})")
    t = ev.triton
    if t is not None:
        if t.error:
            out.append(f"Triton {t.error}")
        if t.no_active_driver:
            out.append("Triton found no active driver")
        if t.autotune_failures and not t.autotune_best_config:
            out.append(f"the autotuner failed on {t.autotune_failures} config(s) and selected none")
    c = ev.compiler
    if c is not None:
        if c.error_count > 0:
            out.append(f"compiler errors: {c.error_count}")
        elif c.ptxas_fatal or c.unknown_arch or c.host_compiler_unsupported:
            out.append(f"compiler: {c.ptxas_fatal or c.unknown_arch or 'unsupported host compiler'}")
        elif c.stdlib_pack_header:
            out.append(f"compiler: parameter packs not expanded in <{c.stdlib_pack_header}>")
    s = ev.sanitizer
    if s is not None and (s.error_count > 0 or s.leaks > 0 or s.race_hazards > 0 or s.api_error or s.barrier_error):
        out.append(f"sanitizer: {s.error_count} error(s)")
    if ev.env is not None:
        issues = [i for i in ev.env.issues if i not in _ENV_INFORMATIONAL]
        if issues and not _all_low_severity(ev.log.text, ev.env.lines):
            out.append(f"environment: {', '.join(issues)}")
    out.extend(_family_signs(ev))
    n = ev.numerics
    failed_numerics = n is not None and (n.mismatch or n.shape_mismatch or n.dtype_mismatch or n.nan_in_output)
    if n is not None and failed_numerics and not n.expected_variation:
        out.append("numerical mismatch")
    unfinished = gpumode_unfinished(ev.log.text)
    if unfinished:
        out.append(unfinished)
    return out


#: GPU MODE's evaluator output (reference-kernels' eval.py): each test's spec, then its status (a benchmark prints its
#: timings after its spec, and no status), and a run that ended says ``check: pass`` or ``check: fail``
_GPUMODE_SPEC = re.compile(r"(?m)^test\.(\d+)\.spec: ")
_GPUMODE_END = re.compile(r"(?m)^(?:(?:test|benchmark)\.\d+\.status: fail|check: (?:pass|fail))\s*$")


def gpumode_unfinished(text: str) -> str | None:
    r"""GPU MODE's evaluator output that stops inside a test: it announced its tests, printed a test's spec and then
    nothing more (no status for it, no ``check:`` line): the process died or was killed there, and whatever it said
    went elsewhere. Not a pass, and not evidence of a cause.

    >>> gpumode_unfinished("test-count: 4\ntest.0.spec: n:1\ntest.0.status: pass\ntest.1.spec: n:2\n")
    'GPU MODE run stopped during test 1 (its spec printed, no status)'
    >>> gpumode_unfinished("test-count: 1\ntest.0.spec: n:1\ntest.0.status: pass\ncheck: pass\n") is None
    True
    >>> gpumode_unfinished("benchmark-count: 2\nbenchmark.0.spec: n:1\nbenchmark.0.runs: 200\nbenchmark.1.spec: n:2\n")
    """
    if "test-count: " not in text or ".spec: " not in text or _GPUMODE_END.search(text):
        return None
    specs = list(_GPUMODE_SPEC.finditer(text))
    if not specs:
        return None
    index = specs[-1].group(1)
    if f"test.{index}.status: " in text[specs[-1].end() :]:
        return None
    return f"GPU MODE run stopped during test {index} (its spec printed, no status)"


def _family_signs(ev: Evidence) -> list[str]:
    """A message of a failure family (severity ``error`` in diagnose/data/catalogue/) on a line of error severity.

    A family's message is the tool's own statement that something failed, whatever words surround
    it; the line's own severity still counts (an INFO or warning line that quotes an error name is
    not a failure of this run)."""
    c = ev.concept
    if c is None or not c.failed or c.family is None:
        return []
    if _all_low_severity(ev.log.text, c.lines):
        return []
    return [f"message family {c.family}"]


def _all_low_severity(text: str, lines: tuple[int, ...]) -> bool:
    """Every cited line is a warning or INFO line (NCCL's ``INFO NET/Plugin ... cannot open``), or the second line
    of one: TensorFlow's INFO record ``could not open file to read NUMA node: ...`` goes on with ``Your kernel may
    have been built without NUMA support.``; a line that is a failure line of its own is not a record's tail."""
    if not lines:
        return False
    wanted = set(lines)
    last = max(wanted)
    before = ""
    for n, line in enumerate(text.splitlines(), 1):
        if n in wanted and not low_severity(line) and not low_record_tail(before, line):
            return False
        if n >= last:
            break
        before = line
    return True


def _line_signs(text: str, limit: int) -> list[str]:
    return [f"line {n}: {line[:160]}" for n, line in failure_lines(text, limit)]
