"""The one thing pyproject.toml cannot say: the top-level rules/ folder ships as the package diagnose.rulebase.

Rules are edited in rules/ (the source of truth); a wheel or ``pip install .`` carries them inside
``diagnose/rulebase/``, where :mod:`diagnose.rules` looks first.  Every folder is a package
(namespace discovery), so new data or rule folders ship without a change here.
"""

from __future__ import annotations

from setuptools import find_namespace_packages, setup

code = find_namespace_packages(include=["diagnose", "diagnose.*", "tui", "tui.*", "harness", "harness.*"])
rulebase = ["diagnose.rulebase", *(f"diagnose.rulebase.{p}" for p in find_namespace_packages(where="rules"))]

setup(
    packages=[p for p in code + rulebase if "__pycache__" not in p],
    package_dir={"diagnose.rulebase": "rules"},
)
