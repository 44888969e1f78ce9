"""Problem sizes: --size on the native protocol, and a KernelBench problem fitted to what the machine holds."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

from diagnose.run import sizes as Z


def test_size_override_sets_a_make_inputs_keyword_in_every_declared_size(write, tmp_path: Path, kdiag_run) -> None:
    mod = write(
        tmp_path,
        "add.py",
        """
        import torch

        SIZES = [dict(n=64, m=2), dict(n=1000, m=2)]


        def make_inputs(device, seed=0, n=64, m=1):
            return (torch.arange(n * m, dtype=torch.float32, device=device),)


        def kernel(x):
            return x + 1


        def reference(x):
            return x + 1
        """,
    )
    code, out, _ = kdiag_run(str(mod), "--size", "n=7", "--probes", "none", "--ladder", "none")
    assert out is not None and code == 0, out
    assert [s["label"] for s in out["sizes"]] == ["n=7,m=2"]  # both declared sizes became one
    assert "ran with --size n=7" in out["notes"]


def test_fit_halves_the_largest_constant_until_the_inputs_fit() -> None:
    import torch

    from harness import sizes as H

    ref: Any = types.ModuleType("ref")
    ref.batch_size, ref.dim, ref.kernel_size = 64, 1 << 20, 3  # 256 MiB of float32
    ref.get_inputs = lambda: [torch.randn(ref.batch_size, ref.dim)]
    got = H.fit(ref, set(), 4 << 20)
    assert got is not None and got["declared"] == {"dim": 1 << 20} and got["declared_bytes"] == 64 * 4 << 20
    assert got["bytes"] <= 4 << 20 and ref.kernel_size == 3 and ref.batch_size == 64  # never a kernel_size
    assert ref.dim == got["ran"]["dim"] == 1 << 14
    fixed: Any = types.ModuleType("fixed")
    fixed.n = 1 << 30
    fixed.get_inputs = lambda: [torch.randn(fixed.n)]
    assert H.fit(fixed, {"n"}, 1 << 20) is None  # given with --size: left as given
    cuda: Any = types.ModuleType("cuda")
    cuda.n = 1 << 30
    cuda.get_inputs = lambda: [torch.randn(cuda.n).cuda()]
    assert H.fit(cuda, set(), 1 << 20) is None  # no estimate on the meta device: nothing changed
    assert cuda.n == 1 << 30


def test_fit_keeps_a_declared_multiple_of_1024_and_halves_a_power_of_two_first() -> None:
    import torch

    from harness import sizes as H

    ref: Any = types.ModuleType("ref")  # KernelBench's 23_Softmax: 4096 x 393216 (3 * 2**17) float32, 6 GiB
    ref.batch_size, ref.dim = 4096, 393216
    ref.get_inputs = lambda: [torch.rand(ref.batch_size, ref.dim)]
    got = H.fit(ref, set(), 8 << 20)
    assert got is not None and got["bytes"] <= 8 << 20
    assert (ref.batch_size, ref.dim) == (512, 3072)  # not dim=1536: a kernel that picks BLOCK=1024 when dim % 1024 == 0
    assert ref.dim % 1024 == 0  # runs the code path the declared size runs
    assert H.fit(ref, set(), 8 << 20) is None  # fits now: nothing more to do
    ref.batch_size, ref.dim = 4096, 393216
    got = H.fit(ref, set(), 128 << 10)  # the interpreter's retry budget: the batch gives way, dim stays 3072
    assert got is not None and (ref.batch_size, ref.dim) == (8, 3072)


def test_fit_shrinks_sizes_that_must_stay_equal_together_when_the_reference_breaks() -> None:
    import torch

    from harness import sizes as H

    ref: Any = types.ModuleType("ref")  # KernelBench's 100_HingeLoss: (B, 32768) * (B,) broadcasts only if B == 32768
    ref.batch_size, ref.input_shape, ref.dim = 32768, (32768,), 1

    class Model(torch.nn.Module):
        def forward(self, predictions, targets):
            return torch.mean(torch.clamp(1 - predictions * targets, min=0))

    ref.Model = Model
    ref.get_inputs = lambda: [torch.rand(ref.batch_size, *ref.input_shape), torch.randint(0, 2, (ref.batch_size,))]
    ref.get_init_inputs = lambda: []
    got = H.fit(ref, set(), 8 << 20)
    assert got is not None and got["declared"] == {"batch_size": 32768, "input_shape": [32768]}
    assert got["ran"] == {"batch_size": 1024, "input_shape": [1024]} and ref.input_shape == (1024,)
    assert H.reference_runs(ref) is True and got["bytes"] <= 8 << 20
    loose: Any = types.ModuleType("loose")  # independent sizes: fitted as before, the largest halved, tuples kept
    loose.batch_size, loose.input_shape = 32768, (4096,)
    loose.Model = torch.nn.Identity
    loose.get_inputs = lambda: [torch.rand(loose.batch_size, *loose.input_shape)]
    got = H.fit(loose, set(), 8 << 20)
    assert got is not None and loose.input_shape == (4096,) and loose.batch_size == 512


def test_a_reference_that_cannot_run_hides_no_compile_failure_of_the_kernel() -> None:
    from diagnose import facts as F
    from diagnose.run.runfacts import kernel_verdict

    ended: Any = types.SimpleNamespace(exit_code=0, signal=None, timed_out=False)
    # a --size that breaks the reference's broadcast: nothing to compare against, so no-result ...
    assert kernel_verdict(ended, F.RunFacts(reference_failed=True), []) == "no-result"
    # ... unless the kernel itself does not compile for the target GPU: that is its failure either way
    assert kernel_verdict(ended, F.RunFacts(reference_failed=True, compile_failed=True), []) == "fail"


def test_a_store_race_the_interpreter_s_program_order_hides_fails_the_run() -> None:
    from diagnose import facts as F
    from diagnose.run.compare import SizeResult
    from diagnose.run.runfacts import kernel_verdict

    ended: Any = types.SimpleNamespace(exit_code=0, signal=None, timed_out=False)
    sizes = [SizeResult("m=64,n=64,k=1024", ok=True)]
    # every size matches; programs stored the same value over each other (a flag): a harmless race, a pass
    assert kernel_verdict(ended, F.RunFacts(store_overlap_elems=64), sizes) == "pass"
    # programs stored other values over each other's (split-K partials added with load + store): a fail
    assert kernel_verdict(ended, F.RunFacts(store_overlap_elems=64, store_overlap_differ_elems=64), sizes) == "fail"


def test_size_check_names_the_constants_a_reference_has(tmp_path: Path) -> None:
    ref = tmp_path / "ref.py"
    ref.write_text("batch_size = 16\ndim = 1 << 10\nM = dim * 2 + batch_size\nscale = 0.5\nflag = True\nname = 'x'\n")
    assert Z.constants(ref) == {"batch_size": 16, "dim": 1024, "M": 2064, "scale": 0.5}  # bools are not sizes
    assert Z.check("kernelbench", ref, {"batch_size": 4}) is None
    assert "(it has: batch_size=16, dim=1024, M=2064, scale=0.5)" in str(Z.check("kernelbench", ref, {"rows": 4}))
    assert Z.check("cuda-file", None, {"n": 4}) is not None


def _norm_problem(torch: Any) -> Any:
    """A GroupNorm problem as MultiKernelBench declares it: a batch, the model's channels and groups, a plane."""
    ref: Any = types.ModuleType("ref")
    ref.batch_size, ref.features, ref.num_groups, ref.dim1, ref.dim2 = 16, 64, 8, 256, 256  # 256 MiB of float32
    ref.Model = lambda c, g: torch.nn.GroupNorm(g, c)
    ref.get_inputs = lambda: [torch.rand(ref.batch_size, ref.features, ref.dim1, ref.dim2)]
    ref.get_init_inputs = lambda: [ref.features, ref.num_groups]
    return ref


def test_a_constant_that_does_not_size_the_inputs_is_never_halved() -> None:
    import torch

    from harness import sizes as H

    ref = _norm_problem(torch)
    got = H.fit(ref, {"batch_size", "features", "dim1", "dim2"}, 8 << 20)  # every size given: nothing can fit it
    assert got is None and ref.num_groups == 8  # was halved to 1 (a GroupNorm of one group), inputs unchanged


def test_the_batch_is_what_sets_the_leading_dimension_of_inputs_and_output_alone() -> None:
    import torch

    from harness import sizes as H

    ref = _norm_problem(torch)
    assert H.batch_slots(ref, set()) == ["batch_size"]  # features: the model's channels too
    got = H.fit(ref, set(), 8 << 20)
    assert got is not None and got["batch"] == ["batch_size"] and got["sample_bytes"] == 16 << 20
    assert set(got["ran"]) - {"batch_size"}  # the budget cannot be met by the batch alone
    mm: Any = types.ModuleType("mm")  # A.T @ B: K leads both inputs and is summed away
    mm.K, mm.M, mm.N = 512, 64, 32
    mm.Model = lambda: lambda a, b: a.T @ b
    mm.get_inputs = lambda: [torch.rand(mm.K, mm.M), torch.rand(mm.K, mm.N)]
    mm.get_init_inputs = lambda: []
    assert H.batch_slots(mm, set()) == []


def test_a_fit_by_the_batch_alone_keeps_every_sample_as_declared() -> None:
    import torch

    from harness import sizes as H

    ref = _norm_problem(torch)
    got = H.fit_batch(ref, set(), 16 << 20)
    assert got is not None and got["batch_only"] and got["ran"] == {"batch_size": 1}
    assert (ref.features, ref.num_groups, ref.dim1, ref.dim2) == (64, 8, 256, 256)
    ref = _norm_problem(torch)
    got = H.fit_batch(ref, set(), 8 << 20)  # one sample is more than that: fitted as fit() does
    assert got is not None and not got["batch_only"]


def test_a_run_that_shrank_each_sample_is_confirmed_with_the_batch_alone() -> None:
    resized = {"ran": {"features": 32, "dim1": 64}, "batch": ["batch_size"], "sample_bytes": 16 << 20}
    assert Z.sample_budget(resized, 8 << 20, 64 << 20) == 16 << 20
    assert Z.per_sample_changes(resized) == ["features", "dim1"]
    assert Z.sample_budget({**resized, "ran": {"batch_size": 2}}, 8 << 20, 64 << 20) is None  # only the batch
    assert Z.sample_budget({**resized, "batch": []}, 8 << 20, 64 << 20) is None  # no batch to shrink
    assert Z.sample_budget({**resized, "sample_bytes": 128 << 20}, 8 << 20, 64 << 20) is None  # one sample too big
