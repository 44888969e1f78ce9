"""Watch every ``@triton.jit`` launch in a child: capture it, bounds-check it, compile it for a GPU.

Called in the kernel child *before* the user's module is imported::

    from harness import triton_hooks
    triton_hooks.install(out_dir, target_gpu="H100")
    ...                      # import the submission, run it
    triton_hooks.finish()    # also runs at exit; writes out_dir/triton_checks.json

What it does (Triton 3.7.1; the hooks are plain attribute patches, undone by nothing: the child
is thrown away), one module per part: :mod:`harness.triton_capture` (1), :mod:`harness.triton_bounds`
(2), :mod:`harness.triton_target` (3) and :mod:`harness.triton_state` (the checks file):

1. **Launch capture.**  ``InterpretedFunction.run`` (under ``TRITON_INTERPRET=1``) and
   ``JITFunction.run`` (on a GPU) are wrapped.  Each launch is specialised exactly as ``@jit``
   would do it on a GPU: a ``JITFunction`` of the same Python function, Triton's own
   ``create_function_from_signature`` binder and ``JITFunction._pack_args`` with the CUDA backend
   of the target, so unit integers become ``constexpr 1``, 16-byte-aligned pointers and integers
   divisible by 16 get ``tt.divisibility 16``, and launch options (``num_warps``, ``num_stages``)
   are parsed by the backend.  Distinct specialisations are kept once, with a call count and grids.
   A launch whose arguments do not bind to the kernel's parameters raises the binder's own ``TypeError``
   (``dynamic_func() missing 1 required positional argument: ...``), as the launch raises it on a GPU.

2. **Bounds checks (interpreter only).**  The interpreter does no bounds checks.  The hooks wrap
   ``InterpreterBuilder.create_masked_load`` / ``create_masked_store`` (every ``tl.load`` /
   ``tl.store``, block pointers and tensor descriptors included) and the atomics, and check each
   *active* (masked-in) lane against the launch's tensor arguments (the argument's own extent,
   not its storage).  Pointer provenance is tracked cheaply: ``create_addptr`` tags its result
   with the argument allocation its base pointer lies in, and splat/broadcast/expand_dims/trans and
   ``where`` carry the tag, so ``x_ptr + offs`` running past the end of ``x`` is caught even when
   it lands inside a neighbouring argument.  An untagged pointer is checked against every
   argument.  Out-of-bounds loads still read what the interpreter reads (the run goes on); lanes
   far outside every argument's storage (more than ``WILD_BYTES``), which would segfault, read
   zero instead, and stores outside every argument's *storage* are dropped (they would corrupt
   the allocator's metadata and crash the child at some unrelated later point).  Stores that land
   in another argument's storage, or in a canary guard (:mod:`harness.canary`), go through, so
   the corruption they cause stays visible.  The checks file is flushed at the first
   out-of-bounds access, so a crash afterwards keeps the record.

3. **Compile for the target GPU.**  Each distinct launch is compiled once with
   ``triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", cc, 32))``
   before it runs (so a kernel that then hangs is still compiled), with
   ``TRITON_DUMP_PTXAS_LOG`` and ``TRITON_ALWAYS_COMPILE`` switched on for the call and stdout
   captured: the ptxas ``-v`` log gives registers and spills.  Compile errors are kept as Triton
   prints them (``traceback.format_exception``), so ``diagnose.collectors.triton_errors`` and
   ``compiler`` read them as they read any log; ``metadata.shared`` is compared with the target's
   opt-in limit and, when over it, the ``OutOfResources`` text the launcher would raise on that GPU
   is kept too.  Under the interpreter every ``@jit`` function (the user's helpers and Triton's own
   ``tl.sum``, ``tl.zeros``, ``tl.cdiv`` ...) is an ``InterpretedFunction``: they are swapped for
   ``JITFunction`` twins for the duration of the compile, and ``InterpretedFunction.__call__`` is
   made to undo its ``triton.language`` patches on return (3.7.1 leaves them in place, which breaks
   every compile after the first interpreted launch of a kernel that calls a helper).

Cost (vector add, 2**20 float32, 1024 programs, 2 cores): the bare interpreter 0.41 s a launch,
with the checks 0.44 s (+6 %, about 7 us per load/store); the first launch of each distinct
specialisation adds its compile, 0.3 s for a vector add.

The file it writes (``triton_checks.json``, schema 1) is read by ``diagnose.run.triton_evidence``
in the parent, which never imports torch or triton.
"""

from __future__ import annotations

import atexit
import os
import signal
from pathlib import Path
from typing import Any

from harness import triton_bf16
from harness import triton_state as S
from harness.triton_bounds import patch_interpreter
from harness.triton_capture import wrap_init_args, wrap_run
from harness.triton_state import FILE_NAME, SCHEMA, State
from harness.triton_target import resolve_target, restore_lang_after_helper_calls

__all__ = ["FILE_NAME", "SCHEMA", "finish", "install", "oob_since", "oob_totals", "state"]


def install(out_dir: Path, *, target_gpu: str = "H100") -> None:
    """Start watching Triton launches in this process; ``finish()`` (or exit) writes the checks."""
    if S.current is not None:
        return
    from triton import knobs
    from triton.runtime import interpreter as interp
    from triton.runtime.jit import JITFunction

    interpret = bool(knobs.runtime.interpret)
    # the code generator imports gluon, which asserts its helpers are JITFunctions unless the
    # interpreter is on: import it now, while it is, so compiles can switch it off
    import triton.compiler.code_generator  # noqa: F401

    st = S.current = State(Path(out_dir), resolve_target(target_gpu), interpret)
    if not getattr(interp.InterpretedFunction.run, "__kdiag_wrapped__", False):
        interp.InterpretedFunction.run = wrap_run(interp.InterpretedFunction.run)
        JITFunction.run = wrap_run(JITFunction.run)
        interp.GridExecutor._init_args_hst = wrap_init_args(interp.GridExecutor._init_args_hst)
        patch_interpreter()
        triton_bf16.install(tf32=st.target.cc >= 80)
        restore_lang_after_helper_calls()
    atexit.register(finish)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
    st.flush()


def _on_sigterm(signum: int, frame: Any) -> None:
    finish()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def finish() -> None:
    """Write ``triton_checks.json`` (final); safe to call more than once."""
    st = S.current
    if st is None:
        return
    st.finished = True
    st.flush()


def state() -> dict[str, Any] | None:
    """What would be written now (for tests and the kernel child's own report)."""
    return S.current.to_json() if S.current is not None else None


def oob_totals() -> dict[Any, int]:
    """Out-of-bounds operations so far per record (the kernel child diffs them per size)."""
    st = S.current
    return {} if st is None else {k: int(r["ops"]) for k, r in st.oob.items()}


def oob_since(before: dict[Any, int]) -> dict[str, Any] | None:
    """What was added since ``before = oob_totals()``: loads, stores and the first such record's figures."""
    st = S.current
    if st is None:
        return None
    loads = stores = 0
    first: dict[str, Any] | None = None
    for key, rec in st.oob.items():
        added = int(rec["ops"]) - before.get(key, 0)
        if added <= 0:
            continue
        if rec["kind"] == "load":
            loads += added
        else:
            stores += added
        if first is None or rec["order"] < first["order"]:
            first = rec
    if first is None:
        return None
    return {
        "loads": loads,
        "stores": stores,
        "kernel": first["kernel"],
        "arg": first["arg"],
        "distance_elems": first["max_distance_elems"],
    }
