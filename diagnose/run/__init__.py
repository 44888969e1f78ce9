"""``kdiag run``: run a target under controlled conditions and diagnose what it left behind.

- :mod:`diagnose.run.targets` — what the target is (AST only, nothing imported);
- :mod:`diagnose.run.session` — the children, the escalation ladder, the run directory;
- :mod:`diagnose.run.ladder` — which rung next, and when a failure counts as explained;
- :mod:`diagnose.run.arrays`, :mod:`diagnose.run.compare` — the children's outputs, read safely and
  compared here, in a process that never runs submission code;
- :mod:`diagnose.run.output` — the readable report and the JSON object.

The children are ``python -m harness.<role>`` (the top-level ``harness`` package); nothing here
imports it, nor torch, triton or cupy.
"""
