"""Which operating system wrote a log: Windows, from the way Windows prints paths, libraries and wheels.

A fix names commands of one system: ``ldconfig``, ``LD_LIBRARY_PATH`` and ``ldd`` do nothing on
Windows, where the loader searches ``PATH`` and the directories ``os.add_dll_directory`` adds, and
``where`` finds a DLL.  The log says which system it came from in the names it prints: drive-letter
paths with backslashes (``C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\bin``), DLL and
EXE names (``nvvm64_40_0.dll``, ``cudart64_110.dll``, ``nvcc.exe``), ``%CUDA_PATH%`` variables, the
Windows loader's own wording (``Could not find module 'nvvm.dll' (or one of its dependencies)``),
``cmd.exe``'s ``is not recognized as an internal or external command`` and wheel tags (``win_amd64``).
Linux prints ``/usr/...`` paths and ``.so`` sonames; a log with more Linux signs than Windows ones
(a WSL log naming ``/usr/lib/wsl/lib`` and a ``.dll`` in passing) is not Windows.

>>> windows(r"Located at C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\lib\\x64\\cudadevrt.lib")
True
>>> windows("OSError: libcudart.so.12: cannot open shared object file: No such file or directory")
False
>>> windows("RuntimeError: CUDA error: an illegal memory access was encountered")
False
"""

from __future__ import annotations

import re

#: the part of a log the signs are counted in (a long log says it early)
SCAN = 200_000
#: at most this many matches of one sign count (one path repeated in a traceback is one fact, said often)
CAP = 3

#: (what a line must contain, lowered, for the sign to be looked for at all; the sign): the cheap
#: substring test spares the regex on the logs, most of them, that cannot have the sign
_WINDOWS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    # a drive-letter path with backslashes (also doubled, as Python's repr prints it)
    ((":\\",), re.compile(r"(?<![\w/])[A-Za-z]:\\{1,2}[\w$. ()~-]")),
    # a DLL or an EXE (cudart64_110.dll, nvcuda.dll, nvcc.exe), a Windows import library (cudart.lib)
    ((".dll", ".exe", ".lib"), re.compile(r"\b[\w.+-]+\.(?:dll|DLL|exe|EXE)\b|\b\w+\\\w+\.lib\b")),
    (("%",), re.compile(r"%[A-Z][A-Z0-9_]*%")),  # %CUDA_PATH%, %PATH%
    (
        ("win_amd64", "win_arm64", "win32", "win64", "windll", "\\windows\\system32"),
        re.compile(r"\bwin_amd64\b|\bwin_arm64\b|\bwin32\b|\bwin64\b|\bWinDLL\b|\\[Ww]indows\\[Ss]ystem32\b"),
    ),
    (
        ("is not recognized", "one of its dependencies"),
        re.compile(r"is not recognized as an internal or external command|\(or one of its dependencies\)"),
    ),
    (
        (":\\", "windowserror", "windows 1", "windows server"),
        re.compile(r"\bPS [A-Za-z]:\\|\bWindowsError\b|\bWindows (?:10|11|Server)\b"),
    ),
)
_LINUX: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("/",), re.compile(r"(?<![\w.])/(?:usr|home|opt|lib|lib64|etc|proc|dev|root|tmp|var|sys)/")),
    ((".so",), re.compile(r"\b[\w+-]+\.so(?:\.\d+)*\b")),
    (
        ("ld_library_path", "ldconfig", "apt", "dmesg", "x86_64-linux-gnu", "manylinux"),
        re.compile(r"\bLD_LIBRARY_PATH\b|\bldconfig\b|\bapt(?:-get)?\b|\bdmesg\b|\bx86_64-linux-gnu\b|\bmanylinux"),
    ),
)


def _score(signs: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...], text: str, low: str) -> int:
    total = 0
    for guards, rx in signs:
        if not any(g in low for g in guards):
            continue
        n = 0
        for _ in rx.finditer(text):
            n += 1
            if n == CAP:
                break
        total += n
    return total


def windows(text: str) -> bool:
    """Whether the log was written on Windows: more Windows signs than Linux ones (see the module)."""
    head = text[:SCAN]
    if "\\" not in head and "." not in head and "%" not in head and "win" not in head.lower():
        return False
    low = head.lower()
    won = _score(_WINDOWS, head, low)
    return won > 0 and won > _score(_LINUX, head, low)


#: a program run from the Nix store: its files (and the libraries it was linked with) under /nix/store/HASH-NAME/
_NIX_STORE = re.compile(r"/nix/store/[0-9a-z]{32}-")


def nix(text: str) -> bool:
    """Whether the log's programs run from the Nix store (NixOS, or Nix on another system), where the dynamic loader
    finds a package's libraries through its runpath, not through the system's folders.

    >>> nix("ImportError: libcublasLt.so.11: cannot open shared object file (/nix/store/1c5h2w6y8z1x2c3v4b5n6m7q8r9s0t1a-cudnn-8.6/lib)")
    True
    >>> nix("/usr/lib/x86_64-linux-gnu/libcuda.so.1")
    False
    """
    return text.find("/nix/store/", 0, SCAN) >= 0 and _NIX_STORE.search(text, 0, SCAN) is not None
