"""The substring guards of the OS signs (diagnose/collectors/host_os.py) are necessary: wherever a sign's
regex matches, one of its guards is in the lowered text, so a guard never hides a sign."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.collectors import host_os
from diagnose.inputs import load_yaml

ROOT = Path(__file__).resolve().parents[2]

# one line per alternative of each sign, in the wordings the module's docstring names
SIGN_LINES = [
    r"Located at C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin",
    "OSError: [WinError 126] cudart64_110.dll not found; nvcc.EXE failed",
    r"LINK : fatal error LNK1181: cannot open input file lib\cudart.lib",
    "set %CUDA_PATH% first",
    "torch-2.1.0-cp311-cp311-win_amd64.whl win_arm64 WIN32 Win64",
    "ctypes.WinDLL failed",
    r"C:\WINDOWS\SYSTEM32\nvcuda.dll",
    "'nvcc' is not recognized as an internal or external command",
    "Could not find module 'nvvm.dll' (or one of its dependencies)",
    r"PS D:\work> python run.py",
    "WindowsError: [Error 5] Access is denied",
    "Windows 10 Pro, Windows 11 Home, Windows Server 2022",
    "/usr/local/cuda/lib64 /home/u/x /opt/y /tmp/z",
    "libcudart.so.12: cannot open shared object file",
    "export LD_LIBRARY_PATH=...; sudo ldconfig; apt-get install; dmesg; x86_64-linux-gnu; manylinux2014",
]


def _texts() -> list[str]:
    texts = list(SIGN_LINES)
    for path in sorted((ROOT / "corpus" / "public").glob("*.yaml")):
        texts += [str(c["log"]) for c in load_yaml(path.read_text()) or [] if isinstance(c, dict) and c.get("log")]
    texts += [p.read_text(errors="replace") for p in sorted((ROOT / "tests" / "fixtures").rglob("*.log"))]
    return texts


@pytest.mark.parametrize("signs", [host_os._WINDOWS, host_os._LINUX], ids=["windows", "linux"])
def test_a_sign_is_found_only_where_a_guard_holds(signs: tuple) -> None:
    matched = set()
    for text in _texts():
        low = text.lower()
        for i, (guards, rx) in enumerate(signs):
            if rx.search(text) is not None:
                matched.add(i)
                assert any(g in low for g in guards), (rx.pattern, text[:200])
    assert matched == set(range(len(signs)))  # every sign was tried where it matches
