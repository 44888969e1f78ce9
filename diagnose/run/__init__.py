"""``kdiag run``: run a target under controlled conditions and diagnose what it left behind.

- :mod:`diagnose.run.targets` — what the target is (AST only, nothing imported);
- :mod:`diagnose.run.session` — ``execute``: the run from start to report;
- :mod:`diagnose.run.context` — the frozen run context, and the log of notes and rungs;
- :mod:`diagnose.run.children` — every child attempt, and the inputs / reference / kernel children;
- :mod:`diagnose.run.target_kernel`, :mod:`diagnose.run.target_command` — one module per target kind;
- :mod:`diagnose.run.climb` — the ladder loop; :mod:`diagnose.run.ladder` — which rung next, and when
  a failure counts as explained;
- :mod:`diagnose.run.runfacts`, :mod:`diagnose.run.assemble` — outcomes → facts → evidence;
- :mod:`diagnose.run.arrays`, :mod:`diagnose.run.compare`, :mod:`diagnose.run.numerics` — the
  children's outputs, read safely and compared here, in a process that never runs submission code;
- :mod:`diagnose.run.probes`, :mod:`diagnose.run.probe_run`, :mod:`diagnose.run.shrink` — inputs
  outside the declared contract, the smallest failing input and its repro;
- :mod:`diagnose.run.accumulator`, :mod:`diagnose.run.accum_sweep`, :mod:`diagnose.run.accum_run` — the
  kernel's accumulator type read from its source, and a failing size re-run at shorter reduction
  lengths to measure how the error grows (accumulation precision from one declared size);
- :mod:`diagnose.run.cuda_sources`, :mod:`diagnose.run.compile_check` — a Python submission's CUDA
  sources, read from its syntax tree and compiled with nvcc for the target arch (no GPU needed);
- :mod:`diagnose.run.no_result` — "could not run here": the cause, from the environment snapshot;
- :mod:`diagnose.run.result` — the frozen result; :mod:`diagnose.run.output` — the readable report
  and the JSON object, from the result alone.

The children are ``python -m harness.<role>`` (the top-level ``harness`` package); nothing here
imports it, nor torch, triton or cupy.
"""
