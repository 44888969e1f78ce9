"""Unknown answers no rule matched: the kind of failure, ranked candidates, the check that decides
(diagnose/unmatched.py, diagnose/data/unmatched.yaml)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from diagnose.classify import classify_record
from diagnose.cli import main
from diagnose.collectors import collect
from diagnose.explain import framework, render
from diagnose.inputs import InputRecord, load_yaml
from diagnose.lint_evidence import ALSO_FITS, frameworks_named
from diagnose.matcher import Matcher
from diagnose.report import Report
from diagnose.rules import RuleSet, default_rules
from diagnose.unmatched import CATEGORIES, DATA, PLATFORMS, default_kinds, hint_for, parse_kinds

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"


def case(path: str, cid: str) -> dict:
    return next(c for c in yaml.safe_load((CORPUS / path).read_text()) if c["id"] == cid)


# dev-set logs (each case names its public source: repo#issue or URL) and the kind they show
KINDS = [
    # "Signal code: Integer divide-by-zero", Open MPI's signal handler
    ("holdout6/issues.yaml", "deepspeed-softmax-launch-divide-by-zero-seq-4096", "signal"),
    ("holdout6/issues.yaml", "jax-cuda12-plugin-newer-than-jax-segfault", "signal"),
    ("holdout6/issues.yaml", "so-gauss-elimination-syncthreads-in-branch-deadlock", "hang"),  # Ocelot: barrier deadlock
    ("holdout6/issues.yaml", "jaxlib-0118-bfc-fragmentation-oom", "out-of-memory"),  # "Out\nof memory", wrapped
    ("holdout6/issues.yaml", "pwcnet-correlation-cuda-call-failed-old-driver", "cuda-error"),
    ("holdout6/issues.yaml", "pysdm-atomicadd-double-needs-cc60", "compiler-error"),
    ("holdout6/issues.yaml", "torch-fp16-cublas-gemmex-fails-large-m", "library-status"),
    ("holdout6/issues.yaml", "numba-jit-target-cuda-boundscheck-kwarg", "exception"),
    ("holdout6/issues.yaml", "cutlass-sm120-nvfp4-gemm-misaligned-smem", "sanitizer-error"),
    ("holdout5/issues.yaml", "cutorch-copy-noncontiguous-wrong", "wrong-result"),  # WRONG ANSWER!!!
    ("holdout3/issues.yaml", "rtx3070ti-xid79-fallen-off-bus", "driver-or-device"),
    ("holdout3/issues.yaml", "hecbench-dxtc1-cuda-validation-fails", "wrong-result"),
    # glibc's assert message of nvtop's own source, then zsh's "IOT instruction" (SIGABRT)
    ("holdout13/issues.yaml", "h13b-nvtop-misplaced-memory-percentage-assert", "program-assertion"),
    # Mocha.jl's "ERROR: Arch mismatch" (cuDNN's ARCH_MISMATCH in its words): not a failed comparison
    ("holdout38/issues.yaml", "h38b-mocha-cudnn-arch-mismatch-old-gpu", "arch-mismatch"),
    # torchsparse's hash map: "ERROR: bucket overflow! (n=823, bucket_num=2/4, key=0)"
    ("holdout38/issues.yaml", "h38b-torchsparse-hashmap-bucket-overflow", "capacity-overflow"),
    # an MLIR op verifier's diagnostic at a kernel's source location (Triton's lowering): a compile failure, not a
    # failed comparison for its "expected ..., but got ..."
    ("holdout49/issues.yaml", "h49a-flaggems-sparse-attn-where-layout", "compiler-error"),
    # Python's "module 'alt_cuda_corr' has no attribute 'forward'": the extension's source folder imported, unbuilt
    ("holdout99/issues.yaml", "h99a-raft-alt-cuda-corr-not-compiled", "module-attribute-missing"),
    # a CuPy neuron's forward raising NotImplementedError for the dtype CPU autocast gave it
    ("holdout99/issues.yaml", "h99c-spikingjelly-cupy-neuron-cpu-amp-dtype", "not-implemented-path"),
    # Bifrost's own "cuda.cpp:88 error 66: BF_STATUS_DEVICE_ERROR" after cudaErrorUnknown: no compiler's diagnostic
    ("holdout100/issues.yaml", "h100a-bifrost-import-unknown-error-driver-cuda-mismatch", "cuda-error"),
    # ICICLE's run-time check "... at: src/ntt/ntt.cu:624 error: NTT size=16 is too large ...": where it fired, no
    # compiler's diagnostic
    ("holdout104/issues.yaml", "h104b-icicle-ntt-domain-released-by-test", "failed-run"),
]

# dev-set logs whose words only look like a failed comparison: OptiX's "Invalid value for
# OptixDenoiserOptions::inputKind: 0" ("np" inside a name is no numpy label) and Windows' "The parameter is
# incorrect" (an argument refused, not a result), a handshake's "engine ID mismatch" (which peer answered)
NOT_WRONG_RESULT = [
    ("holdout71/issues.yaml", "h71d-optix7course-denoiser-inputkind-unset-optix71"),
    ("holdout71/issues.yaml", "h71d-falcor43-hellodxr-createstateobject-gtx1060"),
    # vLLM's NIXL handshake: "Remote NIXL agent engine ID mismatch. Expected ..., received ..." (who answered)
    ("holdout102/issues.yaml", "h102c-vllm-nixl-side-channel-host-unset"),
]


@pytest.mark.parametrize(("path", "cid"), NOT_WRONG_RESULT, ids=[k[1] for k in NOT_WRONG_RESULT])
def test_refused_arguments_are_not_a_wrong_result(path: str, cid: str) -> None:
    h = hint_for(collect(case(path, cid)["log"]))
    assert h is None or h.kind != "wrong-result", h


@pytest.mark.parametrize(("path", "cid", "kind"), KINDS, ids=[k[1] for k in KINDS])
def test_kind_of_a_dev_log(path: str, cid: str, kind: str) -> None:
    h = hint_for(collect(case(path, cid)["log"]))
    assert h is not None and h.kind == kind
    assert h.candidates and h.check


def test_trtexec_summary_alone_is_a_failed_engine_build() -> None:
    # holdout12 tensorrt-trtexec-cublaslt-heuristic-assertion (NVIDIA/TensorRT#2437) without the builder's own
    # error lines: trtexec's summary and its FAILED verdict, which is not a failed comparison
    log = case("holdout12/issues.yaml", "tensorrt-trtexec-cublaslt-heuristic-assertion")["log"]
    summary = "\n".join(line for line in log.splitlines() if "Error Code" not in line)
    h = hint_for(collect(summary))
    assert h is not None and h.kind == "tensorrt-build-failed"
    # an object without the attribute the code asks for (flashrt-project/FlashRT#91)
    h = hint_for(collect(case("holdout32/issues.yaml", "h32b-flashrt-sm89-fp8-path-dropped")["log"]))
    assert h is not None and h.kind == "object-attribute-missing"


@pytest.mark.parametrize(
    "line",
    [
        # glibc assert/assert.c ("%s%s%s:%u: %s%sAssertion `%s' failed.") from a CUDA C++ program
        "saxpy: saxpy.cu:41: int main(): Assertion `err == cudaSuccess' failed.",
        # the MSVC runtime's assert ("Assertion failed: %s, file %s, line %d")
        "Assertion failed: n % 32 == 0, file C:\\src\\kernel.cpp, line 57",
    ],
)
def test_assertion_lines_of_other_programs(line: str) -> None:
    h = hint_for(collect(line))
    assert h is not None and h.kind == "program-assertion"


def test_table_is_well_formed() -> None:
    kinds = default_kinds()
    taxonomy = yaml.safe_load((ROOT / "diagnose" / "data" / "taxonomy.yaml").read_text())
    assert len({k.kind for k in kinds}) == len(kinds)
    for k in kinds:
        assert k.candidates, k.kind
        for c in k.candidates:
            assert c.category in CATEGORIES
            assert c.failure_mode is None or c.failure_mode in taxonomy[c.category], (k.kind, c)


def test_check_texts_fit_their_framework() -> None:
    """A default check names no framework's API; a keyed one names only its own framework's (or one its
    programs use too), like a rule's per-framework fix (``kdiag rules lint``)."""
    for k in default_kinds():
        assert frameworks_named(k.check) == {}, k.kind
        for fw, text in k.checks:
            # a platform's text (tpu) speaks to the programs that run there: JAX's, Pallas kernels among them
            own = {"jax"} if fw in PLATFORMS else {fw, *ALSO_FITS.get(fw, ())}
            assert set(frameworks_named(text)) <= own, (k.kind, fw)


def test_the_check_follows_the_logs_framework() -> None:
    kinds = {k.kind: k for k in default_kinds()}
    cuda_oom = collect(case("holdout6/issues.yaml", "amrex-arena-init-out-of-memory")["log"])  # AMReX, CUDA C++
    jax_crash = collect(case("holdout6/issues.yaml", "jax-cuda12-plugin-newer-than-jax-segfault")["log"])
    assert framework(cuda_oom.context()) == "cuda" and framework(jax_crash.context()) == "jax"
    oom, crash = hint_for(cuda_oom), hint_for(jax_crash)
    assert oom is not None and oom.kind == "out-of-memory"
    # the default, as this log renders it: no torch or XLA advice for CUDA C++
    assert oom.check == render(kinds["out-of-memory"].check, cuda_oom.context())
    assert "torch" not in oom.check and "XLA" not in oom.check
    assert kinds["out-of-memory"].check_for("jax") != oom.check
    assert crash is not None and crash.kind == "signal" and "faulthandler" in crash.check
    # a CUDA C++ program's crash gets gdb on the binary, not Python's faulthandler
    assert "faulthandler" not in kinds["signal"].check_for("cuda")


def test_healthy_logs_get_no_hint() -> None:
    for text in ("", "step 1 loss 0.3\n", "========= ERROR SUMMARY: 0 errors\n", "\x00\xff" * 50):
        assert hint_for(collect(text)) is None


def test_a_bad_table_is_refused() -> None:
    good = yaml.safe_load(DATA.read_text())
    assert len(parse_kinds(good)) == len(good)
    for bad in (
        [],
        [{"kind": "Not Kebab", "check": "x"}],
        [{"kind": "a", "facts": ["nope"], "check": "x"}],
        [{"kind": "a", "candidates": [{"category": "unknown"}], "check": "x"}],
        [{"kind": "a", "check": {"torch": "x"}}],  # no default
        [{"kind": "a", "check": {"default": "x", "tensorflow": "y"}}],
    ):
        with pytest.raises(ValueError):
            parse_kinds(bad)


def _unmatched_report(log: str) -> Report:  # a rule base with no rule: every failing log is unmatched
    return classify_record(InputRecord(id="x", text=log), Matcher(RuleSet(rules=(), root="")))


def test_only_unmatched_unknowns_carry_the_hint() -> None:
    log = case("holdout6/issues.yaml", "deepspeed-softmax-launch-divide-by-zero-seq-4096")["log"]
    r = _unmatched_report(log)
    assert (r.status, r.category, r.failure_mode) == ("unknown", "unknown", "unmatched")
    d = r.to_dict()
    assert d["failure_kind"] == "signal"
    assert d["candidates"][0] == {"category": "kernel-logic", "failure_mode": None}
    assert "backtrace" in d["next_check"]
    # an answered report, and a healthy one, are untouched
    bf16 = case("holdout6/issues.yaml", "vllm-bf16-on-v100-compute-capability-70")["log"]
    answered = classify_record(InputRecord(id="y", text=bf16), Matcher(default_rules()))
    healthy = _unmatched_report("all good\n")
    assert answered.status == "diagnosed"
    for other in (answered, healthy):
        assert other.hint is None and "candidates" not in other.to_dict()
    assert healthy.status == "no-failure" and healthy.to_dict()["next_check"] is None


def test_the_three_formats_show_candidates_and_check(tmp_path: Path) -> None:
    log = case("holdout6/issues.yaml", "so-gauss-elimination-syncthreads-in-branch-deadlock")["log"]
    (tmp_path / "gauss.log").write_text(log)
    empty = tmp_path / "rules"
    empty.mkdir()
    outs = {}
    for fmt in ("table", "markdown", "jsonl"):
        buf = io.StringIO()
        args = ["classify", "--rules", str(empty), "-f", fmt, str(tmp_path / "gauss.log")]
        main([*args, "-v"] if fmt == "table" else args, out=buf)
        outs[fmt] = buf.getvalue()
    assert "candidates, none decided: kernel-logic / barrier-divergence-deadlock" in outs["table"]
    assert "to decide: Where is it waiting" in outs["table"]
    assert "- kernel-logic / barrier-divergence-deadlock" in outs["markdown"]
    assert "**To decide:** Where is it waiting" in outs["markdown"]
    rec = json.loads(outs["jsonl"].splitlines()[0])
    assert rec["failure_kind"] == "hang" and rec["candidates"][0]["failure_mode"] == "barrier-divergence-deadlock"
    assert rec["next_check"].startswith("Where is it waiting")


def test_kind_line_patterns_answer_as_their_search() -> None:
    """A kind's line pattern, tried through its anchor tests, is found in exactly the lines its search finds
    (the lines of the example logs and of the public and two held-out corpora's logs)."""
    from diagnose.unmatched import _search

    texts = [p.read_text() for p in sorted((ROOT / "examples" / "logs").glob("*.log"))]
    for part in ("public", "holdout2", "holdout7"):
        for path in sorted((CORPUS / part).glob("*.yaml")):
            data = load_yaml(path.read_text())
            cases = data if isinstance(data, list) else []
            texts += [str(c.get("log") or "") for c in cases if isinstance(c, dict)]
    lines = sorted({line.strip() for t in texts for line in t.splitlines() if line.strip()})
    assert len(lines) > 500
    found = tested = 0
    for kind in default_kinds():
        for rx in kind.lines:
            search = _search(rx)
            for line in lines:
                got = search(line)
                assert got == (rx.search(line) is not None), (kind.kind, rx.pattern, line[:200])
                found += got
            tested += 1
    assert tested > 20 and found > 20


def test_a_failed_run_check_quotes_the_logs_first_failure_line() -> None:
    """The check of a log no kind names starts from the failure the log states, not only from a rerun."""
    log = (
        "building kernels\n"
        'my_kernel.cu: error: more than one instance of overloaded function "max" matches the argument list:\n'
        "            argument types are: (half, __half)\n"
    )
    hint = hint_for(collect(log))
    assert hint is not None and hint.kind == "failed-run"
    assert hint.check.startswith("The first failure line is `my_kernel.cu: error: more than one instance of")
    assert "{log_first_failure}" not in hint.check


def test_a_cuda_status_no_rule_reads_is_checked_with_nvidias_own_words() -> None:
    # holdout99's CUDA IPC mapping across nodes: the status's description in the toolkit's driver_types.h leads
    h = hint_for(collect(case("holdout99/issues.yaml", "h99b-nemorl-xtoken-cuda-ipc-cross-node")["log"]))
    assert h is not None and h.kind == "cuda-error"
    assert h.check.startswith(
        "CUDA's own description of `cudaErrorMapBufferObjectFailed`: \"This indicates that the buffer object could not"
    )
