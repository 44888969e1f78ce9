"""Probe derivation, judging helpers, the contract-first ordering and the shrink rule (no children)."""

from __future__ import annotations

from diagnose.matcher import Finding, decide
from diagnose.rules import default_rules
from diagnose.run import probes as P
from diagnose.run import shrink as S
from diagnose.run.session import probe_verdict


def _entry(label: str, size: dict, tensors: dict, struct: dict) -> dict:
    return {"label": label, "size": size, "structure": struct, "tensors": tensors}


def test_size_probes_come_from_sizes_and_make_inputs_defaults() -> None:
    m = {
        "kind": "kernel-module",
        "size_params": {"rows": 64, "cols": 4096},
        "sizes": [
            _entry(
                "rows=37,cols=3000",
                {"rows": 37, "cols": 3000},
                {"in0": {"dtype": "float32", "shape": [37, 3000]}},
                {"tuple": [{"t": "in0"}]},
            )
        ],
    }
    labels = [p.label for p in P.derive(m, "quick", seed=0)]
    assert labels[:3] == ["rows=36,cols=3000", "rows=38,cols=3000", "rows=41,cols=3000"]
    assert "rows=37,cols=3001" in labels and "rows=1,cols=3000" in labels and "rows=37,cols=1" in labels
    layouts = [p.layout["kind"] for p in P.derive(m, "quick", seed=0) if p.layout]
    assert layouts == ["transpose", "pad_rows", "offset1"]


def test_kernelbench_probes_vary_the_batch_of_the_forward_inputs_only() -> None:
    struct = {"dict": {"init": {"list": [{"v": 32}]}, "args": {"list": [{"t": "in0"}]}}}
    m = {
        "kind": "kernelbench",
        "sizes": [_entry("default", {}, {"in0": {"dtype": "float32", "shape": [16, 32]}}, struct)],
    }
    got = {p.label: p for p in P.derive(m, "full", seed=0, interpreter=True)}
    assert {"batch=15", "batch=17", "batch=19", "batch=1", "batch=0"} <= set(got)
    assert got["batch=17"].values == {"batch": 17, "from": 16}
    assert "float32->float16 @ default" in got and not any("bfloat16" in k for k in got)  # interpreter: no bf16


def test_probe_verdicts_and_contract_first() -> None:
    probe = P.Probe("n=4097", "nonmultiple", "n+1", "n=4096", {"n": 4097})
    seed = P.Probe("seed=1 @ n=4096", "seed", "seed", "n=4096", {"n": 4096}, 1)
    assume = P.Matrix("quick", (P.ProbeResult(probe, "oob"),))
    inside = P.Matrix("full", (P.ProbeResult(probe, "ok"), P.ProbeResult(seed, "mismatch")))
    assert probe_verdict("pass", assume) == "assumption"
    assert probe_verdict("pass", inside) == "fail"
    assert probe_verdict("fail", assume) == "fail"
    assert P.facts(assume)["probe_nonmultiple_failed"] and P.facts(assume)["probe_oob"]

    def finding(rule: str, category: str, priority: int, about: str = "contract") -> Finding:
        return Finding(rule, rule, category, rule, 0.8, priority, 1, (), "", "", "", speaks_about=about)

    probe_f = finding("run-probe-shape-not-multiple-of-block", "runtime-assumption", 14, "probe")
    exit_f = finding("exit-nonzero", "kernel-logic", 5)
    assert default_rules().get(probe_f.rule).speaks_about == "probe"  # the rule file says so
    failed = decide((probe_f, exit_f), lead="contract")  # the matcher's ranking, a run that failed
    assert failed.rule == "exit-nonzero" and [f.rule for f in failed.alternatives] == [probe_f.rule]
    assumed = decide((exit_f, probe_f), lead="probe")  # passed at the declared sizes, a probe failed
    assert assumed.rule == probe_f.rule and assumed.category == "runtime-assumption"
    alone = decide((probe_f,), lead="contract")
    assert alone.category == "unknown" and alone.best is None and alone.alternatives == (probe_f,)
    assert decide((exit_f,), lead="probe").rule == "exit-nonzero"  # no probe finding: the plain ranking


def test_shrink_candidates_and_rules() -> None:
    c = S.candidates(1000)
    assert c[:8] == [1, 2, 3, 4, 5, 6, 7, 8] and {255, 256, 257, 1000, 1023, 1024} <= set(c) and max(c) == 1024
    assert S.rule_of("n", {v: v % 64 != 0 for v in c}) == "fails whenever n % 64 != 0"
    assert S.rule_of("n", {v: v > 300 for v in c}) == "fails whenever n >= 511"  # the first candidate above 300
    assert S.rule_of("n", {1: False, 2: False}) is None


def test_tolerance_of_loosens_with_the_scale() -> None:
    p = P.Probe("x1e4", "large", "", "n=8", {"n": 8}, values={"scale": 1e4})
    tol = P.tolerance_of(p, None)
    assert tol["float32"]["atol"] == 1e-4 * 1e4 and tol["float32"]["rtol"] == 1e-4
    assert P.tolerance_of(P.Probe("n=9", "nonmultiple", "", "n=8", {"n": 9}), {"atol": 1.0}) == {"atol": 1.0}


def test_probes_that_fail_only_where_one_size_passes_another_say_so() -> None:
    # a column grid sized from the rows (corpus/kernels/colnorm_grid_rows.py): square and tall shapes pass
    def result(m: int, n: int, verdict: str, base: str = "m=100,n=100") -> P.ProbeResult:
        return P.ProbeResult(P.Probe(f"m={m},n={n}", "nonmultiple", "", base, {"m": m, "n": n}), verdict)

    wide = (result(128, 129, "mismatch", "m=128,n=128"), result(1, 128, "mismatch", "m=128,n=128"))
    rest = (result(99, 100, "ok"), result(100, 99, "ok"), result(129, 128, "ok", "m=128,n=128"))
    assert P.facts(P.Matrix("quick", wide + rest))["probe_fails_where"] == "n > m"
    # a failure on the other side too is no such pattern, and neither is one failing probe
    both = wide + rest + (result(101, 100, "mismatch"),)
    assert P.facts(P.Matrix("quick", both))["probe_fails_where"] is None
    assert P.facts(P.Matrix("quick", wide[:1] + rest))["probe_fails_where"] is None


def test_the_first_crashing_probe_s_error_is_kept() -> None:
    # corpus/kernels/logsumexp_block_is_cols.py: BLOCK = cols, so a column count that is not a power of two crashes
    def result(cols: int, verdict: str, error: str | None = None) -> P.ProbeResult:
        probe = P.Probe(f"cols={cols}", "nonmultiple", "", "cols=256", {"cols": cols})
        return P.ProbeResult(probe, verdict, {"error": error} if error else {})

    pow2 = 'InterpreterError: ValueError("arange\'s range must be a power of 2")'
    matrix = P.Matrix("quick", (result(256, "ok"), result(255, "mismatch"), result(257, "crash", pow2)))
    assert P.facts(matrix)["probe_crash_error"] == pow2
    assert P.facts(P.Matrix("quick", (result(255, "mismatch"),)))["probe_crash_error"] is None
