"""Collectors: pure parsers from text to typed facts, one module per evidence source.

Each module exposes ``parse(text: str) -> <Facts> | None``: ``None`` when the text
says nothing about its source.  Line numbers in the facts are 1-based lines of
``text``.  Collectors never raise on odd input (binary junk, huge lines, partial
reports); they say less.  :func:`collect` runs them all over one log and builds
the :class:`~diagnose.evidence.Evidence` record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diagnose import facts as F
from diagnose.collectors import host_os, int_wrap, jit_lock, link_symbols, log_words
from diagnose.collectors.decorations import undecorate
from diagnose.collectors.rejected_candidates import blank_rejected
from diagnose.evidence import Evidence

#: bytes of a log kept for rules' text search; larger logs keep head and tail
TEXT_LIMIT = 1 << 20


def _parsers() -> dict[str, Callable[[str], Any]]:
    from diagnose.collectors import (
        compiler,
        cuda_errors,
        environment,
        exit_status,
        families,
        location,
        numerics,
        oom,
        pytraceback,
        sanitizer,
        triton_errors,
    )

    return {
        "py": pytraceback.parse,
        "cuda": cuda_errors.parse,
        "oom": oom.parse,
        "triton": triton_errors.parse,
        "compiler": compiler.parse,
        "sanitizer": sanitizer.parse,
        "env": environment.parse,
        "exit": exit_status.parse,
        "numerics": numerics.parse,
        "concept": families.parse,
        "location": location.parse,
    }


_PARSERS: dict[str, Callable[[str], Any]] | None = None


def bound_text(text: str, limit: int = TEXT_LIMIT) -> tuple[str, bool]:
    """Keep at most ``limit`` characters: the head and the tail, joined by a marker line."""
    if len(text) <= limit:
        return text, False
    half = limit // 2
    head = text[:half]
    tail = text[-half:]
    # cut at line boundaries so no line is half kept
    head = head[: head.rfind("\n") + 1] or head
    nl = tail.find("\n")
    tail = tail[nl + 1 :] if nl >= 0 else tail
    omitted = len(text) - len(head) - len(tail)
    return f"{head}[kdiag: {omitted} characters omitted]\n{tail}", True


def collect(
    text: str,
    *,
    id: str | None = None,
    exit_code: int | None = None,
    signal: str | None = None,
    timed_out: bool = False,
    origin: str = "log",
    errors: list[str] | None = None,
) -> Evidence:
    """Run every collector over ``text``; a collector that fails is reported in ``errors``."""
    global _PARSERS
    if _PARSERS is None:
        _PARSERS = _parsers()
    bounded, truncated = bound_text(text)
    bounded = undecorate(bounded)  # a pipeline's colours and per-line prefixes: line numbers kept
    bounded = blank_rejected(bounded)  # an autotuner's rejected candidates' errors: not the run's
    found: dict[str, Any] = {}
    for key, parse in _PARSERS.items():
        try:
            result = parse(bounded)
        except Exception as exc:  # a collector bug must not lose the record
            if errors is not None:
                errors.append(f"collector {key} failed: {type(exc).__name__}: {exc}")
            continue
        if result is not None:
            found[key] = result
    if exit_code is not None or signal is not None or timed_out:
        from diagnose.collectors import exit_status

        found["exit"] = exit_status.merge(found.get("exit"), code=exit_code, signal=signal, timed_out=timed_out)
    dup = link_symbols.duplicate_symbol(bounded) if "efinition" in bounded else None
    gap = log_words.ggml_arch_gap(bounded)
    torch_version, torch_cuda = log_words.torch_versions(bounded)
    log = F.LogFacts(
        text=bounded,
        line_count=bounded.count("\n") + (0 if bounded.endswith("\n") or not bounded else 1),
        bytes=len(text.encode("utf-8", "surrogateescape")) if len(text) < TEXT_LIMIT * 4 else len(text),
        truncated=truncated,
        windows=host_os.windows(bounded),
        nix=host_os.nix(bounded),
        masked=log_words.masked(bounded),
        tpu=log_words.tpu(bounded),
        gpu_runtime=log_words.gpu_runtime(bounded),
        gtest_run=log_words.gtest_run(bounded),
        kernel_compiler=log_words.kernel_compiler(bounded),
        multi_gpu=log_words.multi_gpu(bounded),
        cuda_toolkit=log_words.cuda_toolkit(bounded),
        host=log_words.host(bounded),
        regression_at=log_words.regression_at(bounded),
        syntax_error_at=log_words.syntax_error_at(bounded),
        duplicate_symbol=dup[0] if dup else None,
        duplicate_symbol_library=dup[1] if dup else None,
        int32_wrapped=int_wrap.wrapped(bounded),
        jit_lock_wait=jit_lock.wait_at(bounded),
        conda_env=log_words.conda_env(bounded),
        conda_build_prefix=log_words.conda_build_prefix(bounded),
        torch_version=torch_version,
        torch_cuda_version=torch_cuda,
        launch_blocking=log_words.launch_blocking(bounded),
        last_kernel=log_words.last_kernel(bounded),
        graphics_interop=log_words.graphics_interop(bounded),
        glsl_mesa_error=log_words.glsl_mesa_error(bounded),
        managed_prefetch=log_words.managed_prefetch(bounded),
        cuda_ipc=log_words.cuda_ipc(bounded),
        ggml_arch_gap=gap[0] if gap else None,
        ggml_arch_detail=gap[1] if gap else None,
        empty_input=log_words.empty_input(bounded),
        project_source=log_words.project_source(bounded),
        intermittent=log_words.intermittent(bounded),
        shape_overflow=log_words.shape_overflow(bounded),
        pointer_misaligned=log_words.pointer_misaligned(bounded),
        compiled_wrong=log_words.compiled_wrong(bounded),
    )
    return Evidence(id=id, origin=origin, log=log, **found)
