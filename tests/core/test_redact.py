"""Recorded output hides the capturing machine's own paths (diagnose.redact)."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import yaml

from diagnose.redact import REPO, redact_paths

ROOT = Path(__file__).resolve().parents[2]


def test_install_checkout_and_scratch_prefixes_become_names() -> None:
    text = (
        f'File "{sys.prefix}/lib/python3.11/site-packages/torch/cuda/__init__.py", line 1\n'
        f"{sys.prefix}/bin/python -c 'import os; os.abort()'\n"
        f"{REPO}/harness/kernel.py:12\n"
        f"{tempfile.gettempdir()}/tmpabc/k.cu(3): error\n"
    )
    out = redact_paths(text)
    assert str(REPO) not in out and sys.prefix not in out
    assert '"<venv>/lib/python3.11/site-packages/torch/cuda/__init__.py", line 1' in out
    assert "<venv>/bin/python -c 'import os; os.abort()'" in out
    assert "<repo>/harness/kernel.py:12" in out
    assert "<tmp>/tmpabc/k.cu(3): error" in out


def test_any_interpreters_library_folders_and_extra_names() -> None:
    out = redact_paths(
        "/opt/conda/lib/python3.10/site-packages/triton/compiler.py /usr/lib/python3.12/runpy.py /home/u/proj/x.py",
        extra=[("/home/u/proj", "<scratch>")],
    )
    assert out == (
        "<venv>/lib/python3.10/site-packages/triton/compiler.py <python>/lib/python3.12/runpy.py <scratch>/x.py"
    )


def test_only_whole_prefixes_are_replaced() -> None:
    tmp = tempfile.gettempdir()
    # a longer name that merely starts with the prefix, and the prefix inside another path, stay
    assert redact_paths(f"{tmp}foo/x /data{tmp}/y") == f"{tmp}foo/x /data{tmp}/y"
    assert redact_paths("error: nothing to hide here") == "error: nothing to hide here"


def test_recorded_captures_name_no_machine_install() -> None:
    """What we captured ourselves (not the public reports) keeps no absolute virtualenv path."""
    venv_path = re.compile(r"(?<![\w<>~.])/[^\s\"'<>:]*/\.venv/")
    offenders = []
    for rel in ("corpus/captured/cases.yaml", "corpus/kernels/recorded.yaml"):
        for case in yaml.safe_load((ROOT / rel).read_text()):
            if not str(case.get("source", "")).startswith(("captured", "recorded")):
                continue  # a public report keeps its reporter's paths verbatim
            hits = venv_path.findall(yaml.safe_dump(case))
            if hits:
                offenders.append(f"{rel}: {case.get('id')}: {hits[0]}")
    assert offenders == []
