"""Fix text that fits where the failing code lives (:mod:`diagnose.collectors.location`).

A rule's fix is written for the common case: the failing kernel is the reader's own.  When the
evidence says otherwise, the rendered fix says so first:

- a **library**'s kernel (flash-attn, cuBLAS, ATen, cuDF, ...) under a ``kernel-logic`` answer: the
  kernel is the library's, the reader's code is the caller; upgrade it, pin the last version that
  worked, report upstream with the log; unless the library's code is a source tree under the reader's
  home (a developer's own build), where "upgrade" does not apply: the fix is in that code, or the
  last commit that worked;
- a library's code a **package manager** is building (luarocks, pip, conda-build, Spack, vcpkg build trees):
  the reader installs it, and an edit in the temporary tree does not last: pin the last release or commit
  that built, report upstream;
- **generated** code (TorchInductor, nvFuser, XLA fusions, TileLang's and TVM's kernels): the generator wrote it;
  confirm without the generator, upgrade it, report upstream with the generated code;
- the **toolchain** crashed or failed its own assertion: a compiler bug, whatever the source; and
  every answer on such a log gets the compiler-bug alternative in its caveats.

A fix that sends the reader to ``file.cu:LINE`` names the log's own source line when the evidence has
one, and says there is none (only offsets) when it has not: it never points at a line the log does
not print.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from diagnose.clip import clip

#: a rule text's pointer to a source line it expects the log to print
_LINE_POINTER = re.compile(r"`[^`\n]*\b(?:file|FILE|kernel)\.(?:cu|cuh|py):LINE\b[^`\n]*`|\b(?:file|FILE)\.cu:LINE\b")
#: a rule text's mention of the line a report names
_NO_LINE = (
    "source line (this log prints none, only offsets: rebuild with line information, `nvcc -lineinfo`, to get one)"
)
#: Numba's kernels (its mangled names start with ``cudapy::``, numba/cuda/dispatcher.py) get their line table
#: from the decorator, not from nvcc
_NUMBA = re.compile(r"\bcudapy::|\bnumba\b", re.IGNORECASE)
_NUMBA_LINEINFO = "`@cuda.jit(lineinfo=True)`"
_REPORTED_LINE = re.compile(r"\bthe reported (?:source |kernel )?line\b(?! \(this log prints none)")
MAX_FRAME = 100

#: what to do about generated code, per generator

_GENERATED = {
    "TorchInductor": (
        "run the same code without `torch.compile` (`TORCH_COMPILE_DISABLE=1`) to confirm, upgrade PyTorch "
        "(or pin the last version that worked), and report it to PyTorch with this log and the generated "
        "kernel (`TORCH_LOGS=output_code` prints it)"
    ),
    "nvFuser": (
        "run the same code with the fuser disabled to confirm, upgrade PyTorch/nvFuser (or pin the last "
        "version that worked), and report it upstream with this log"
    ),
    "TileLang": (
        "upgrade TileLang (or pin the last version that worked; a nightly or source build regresses first) and "
        "report it to TileLang with this log and the generated CUDA source (`kernel.get_kernel_source()`)"
    ),
    "TVM": (
        "upgrade TVM (or the project that bundles it, such as MLC-LLM; or pin the last version that worked) and "
        "report it upstream with this log and the generated CUDA source"
    ),
    "XLA": (
        "upgrade jax and jaxlib (or pin the last version that worked) and report it to XLA with this log "
        "and the fused HLO (`XLA_FLAGS=--xla_dump_to=DIR` writes it)"
    ),
}


def _frame(context: Mapping[str, Any]) -> str:
    frame = str(context.get("location_frame") or "").strip().lstrip("= ").strip()
    if len(frame) > MAX_FRAME:
        frame = clip(frame, MAX_FRAME)
    return f" (`{frame}`)" if frame else ""


def _caller(context: Mapping[str, Any]) -> str:
    user = context.get("location_user_frame")
    return f" (`{user}`)" if user else ""


def source_lines(fix: str, context: Mapping[str, Any]) -> str:
    """``file.cu:LINE`` pointers replaced by the log's source line, or by a note that it has none; "the
    reported line" given the line, or said to be missing when the log's frames have only offsets."""
    source = context.get("location_source_line")
    if "LINE" not in fix and not ("reported" in fix and (source or context.get("location_offsets_only"))):
        return fix  # nothing to point at: the log is not searched
    no_line = _NO_LINE
    if _NUMBA.search(str(context.get("log_text") or "")[:200_000]):
        no_line = _NO_LINE.replace("`nvcc -lineinfo`", _NUMBA_LINEINFO)
    if "LINE" in fix:
        fix = _LINE_POINTER.sub(f"`{source}`" if source else no_line, fix)
        fix = fix.replace(f"the reported {no_line}", f"the {no_line}")  # said once, and not "reported"
    if "reported" in fix and (source or context.get("location_offsets_only")):
        fix = _REPORTED_LINE.sub(f"the reported line (`{source}`)" if source else f"the {no_line}", fix)
    return fix


def located_fix(fix: str, category: str, context: Mapping[str, Any], *, for_caller: bool = False) -> str:
    """The rendered fix, led by what to do when the failing code is not the reader's (unless the rule's fix
    is written for the library's caller already: it names the library from the location facts)."""
    fix = source_lines(fix, context)
    if category != "kernel-logic" or for_caller:
        return fix
    kind = context.get("location_kind")
    name = context.get("location_library")
    if kind == "library" and name and context.get("location_checkout"):
        lead = (
            f"The failing kernel is {name}'s code built from a source tree of your own{_frame(context)}, not an "
            f"installed release: if you are changing {name}, the defect is in that code and the fix below applies "
            f"to it; if you only built it to use it, go back to the last commit that worked (or update the "
            f"checkout) and report it upstream with this log."
        )
        return f"{lead} {fix}" if fix else lead
    manager = context.get("location_package_build")
    if kind == "library" and name and manager:
        # a package being built by its package manager: the user installs it, and its build tree is temporary
        lead = (
            f"The failing code is {name}'s, compiled while {manager} builds and installs it{_frame(context)}, not "
            f"code of yours: install the last release or commit of {name} that built (pin it), and report it "
            f"upstream with this log and your toolkit's version; an edit in that temporary tree is lost at the next "
            f"install."
        )
        return f"{lead} If you are changing {name} yourself: {fix[:1].lower()}{fix[1:]}" if fix else lead
    if kind == "library" and name and context.get("log_gtest_run"):
        # a gtest binary running the library's kernel: most likely the library's own tests, read by its developer
        note = (
            f"The failing kernel is {name}'s{_frame(context)} and the log is a gtest run, most likely {name}'s "
            f"own test suite: the defect is in that kernel and the fix above applies to it. If these are your "
            f"own tests calling {name}, upgrade {name} (or pin the last version that worked) and report it "
            f"upstream with this log."
        )
        return f"{fix} {note}" if fix else note
    if kind == "library" and name:
        lead = (
            f"The failing kernel is inside {name}{_frame(context)}, not in your code: your code is the "
            f"caller{_caller(context)}. Upgrade {name}, or pin the last version that worked, and report it "
            f"upstream with this log (and the inputs' shapes and dtypes)."
        )
    elif kind == "generated" and name:
        todo = _GENERATED.get(str(name), "upgrade it (or pin the last version that worked) and report it upstream")
        lead = (
            f"The failing kernel is code {name} generated{_frame(context)}, not code you wrote: your code is "
            f"the caller{_caller(context)}; {todo}."
        )
    elif kind == "toolchain" and name:
        lead = (
            f"The failure is inside the toolchain: {name} crashed or failed its own check{_frame(context)}. "
            f"Try another {name} version (newer, or the last that worked) and report it upstream with this log "
            f"and the input it was compiling; the source is its input, not proven wrong."
        )
    else:
        return fix
    return f"{lead} If the kernel is your own after all: {fix[:1].lower()}{fix[1:]}" if fix else lead


def located_caveats(caveats: str | None, failure_mode: str, context: Mapping[str, Any]) -> str | None:
    """The compiler-bug alternative for every answer on a log where a compiler crashed."""
    if not context.get("location_compiler_crash") or "compiler" in failure_mode:
        return caveats
    tool = context.get("location_library") or "the compiler"
    note = (
        f"Alternative: {tool} itself crashed or failed an internal assertion{_frame(context)}; that is a "
        f"compiler bug (environment / compiler-bug) whatever the source: retry with another {tool} version "
        f"before changing the code."
    )
    return f"{caveats} {note}" if caveats else note


def location_facts(context: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The location facts worth showing under "In this log" (only when the code is not the user's)."""
    kind = context.get("location_kind")
    if kind not in ("library", "generated", "toolchain"):
        return ()
    out = [("location_kind", str(kind))]
    if context.get("location_library"):
        out.append(("location_library", str(context["location_library"])))
    return tuple(out)
