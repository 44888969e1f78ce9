r"""The CUDA toolkit release a build log names, and which way it disagrees with an arch nvcc rejected.

``nvcc fatal : Unsupported gpu architecture 'compute_60'`` has two opposite causes: a toolkit older than
the architecture (CUDA 7.5 knows no Pascal: upgrade it) and one newer than the architecture's last
release (CUDA 13 dropped Pascal: drop it from the arch list, or build with CUDA 12). The message alone
does not say which; the toolkit's release does, where the log prints it. The tools' own wordings read
here (real samples in ``tests/fixtures/compiler/nvcc-version-dropped-arch.log`` and
``cmake-dropped-arch.log``, nvcc 13.0 and CMake 3.25 on this machine)::

    Cuda compilation tools, release 13.0, V13.0.88                 (nvcc --version)
    -- The CUDA compiler identification is NVIDIA 13.0.88            (CMake's project(... CUDA))
    -- Found CUDA: /usr/local/cuda (found version "7.5")              (CMake's FindCUDA)
    -- Found CUDAToolkit: /usr/local/cuda/include (found version "12.1.105")
    The detected CUDA version (11.8) mismatches ...                  (torch.utils.cpp_extension)
    /usr/local/cuda-11.8/bin/nvcc ...,  C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin\nvcc.exe

A log naming two different releases names none (the one that ran cannot be told). Which releases accept
which architecture is ``diagnose/data/cuda_arch_releases.yaml``.

>>> toolkit_release("Cuda compilation tools, release 7.5, V7.5.17")
'7.5'
>>> toolkit_release("-- The CUDA compiler identification is NVIDIA 13.0.88")
'13.0'
>>> toolkit_release("/usr/local/cuda-11.8/bin/nvcc -c a.cu\n/usr/local/cuda-12.1/bin/nvcc -c b.cu") is None
True
>>> arch_releases("compute_60")
('8.0', '13.0')
>>> arch_side("compute_60", "7.5"), arch_side("sm_60", "13.0"), arch_side("compute_60", "11.8")
('too-old', 'dropped', 'inside')
>>> arch_side("compute_60", None) is None
True
>>> arch_releases("compute_21"), arch_releases("sm_21"), virtual_arch("compute_21"), virtual_arch("sm_21")
((None, None), (None, '9.0'), 'compute_20', None)
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parent.parent / "data" / "cuda_arch_releases.yaml"

_RELEASE = (
    re.compile(r"Cuda compilation tools, release (\d+\.\d+)"),
    re.compile(r"The CUDA compiler identification is NVIDIA (\d+\.\d+)"),
    re.compile(r"Found CUDA(?:Toolkit)?: \S+ \(found (?:suitable )?version \"(\d+\.\d+)"),
    re.compile(r"The detected CUDA version \((\d+\.\d+)"),
    re.compile(r"/cuda-(\d+\.\d+)/(?:bin|lib|include|targets|nvvm)\b"),
    re.compile(r"(?i)\\CUDA\\v(\d+\.\d+)\\"),
)
_ARCH = re.compile(r"^(?:sm|compute|lto)_(\d+[a-z]?)$")


def toolkit_release(text: str) -> str | None:
    """The one CUDA toolkit release (``"11.8"``) the log names in a tool's own words, else None."""
    if "cuda" not in text.lower():
        return None
    found = {m.group(1) for rx in _RELEASE for m in rx.finditer(text)}
    return found.pop() if len(found) == 1 else None


@cache
def _table() -> dict[str, tuple[str | None, str | None]]:
    # libyaml's loader where PyYAML has it (the same data, read many times faster), else PyYAML's own
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(DATA.read_text(encoding="utf-8"), Loader=loader)
    return {str(k): (v.get("first"), v.get("removed")) for k, v in data["archs"].items()}


@cache
def _virtual() -> dict[str, str]:
    """XX -> the virtual architecture's number for the rows whose ``compute_XX`` never existed (21 -> 20)."""
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(DATA.read_text(encoding="utf-8"), Loader=loader)
    return {str(k): str(v["virtual"]) for k, v in data["archs"].items() if v.get("virtual")}


def virtual_arch(arch: str | None) -> str | None:
    """The virtual architecture to write instead of ``arch`` when ``arch`` is a ``compute_XX`` that no release
    ever had (``compute_21``: sm_21's code is built for ``compute_20``), else None."""
    m = re.match(r"^compute_(\d+[a-z]?)$", (arch or "").strip())
    v = _virtual().get(m.group(1)) if m else None
    return f"compute_{v}" if v else None


def arch_releases(arch: str) -> tuple[str | None, str | None]:
    """(first release that accepts ``arch``, first release that removed it) from the table; (None, None)
    for an arch it does not hold, and for a ``compute_XX`` no release ever had (:func:`virtual_arch`)."""
    m = _ARCH.match(arch.strip())
    if not m or virtual_arch(arch):
        return (None, None)
    return _table().get(m.group(1), (None, None))


def release_key(v: str) -> tuple[int, ...]:
    """A toolkit release (``"12.1"``) as a tuple that compares in release order."""
    return tuple(int(p) for p in v.split("."))


def arch_side(arch: str | None, release: str | None) -> str | None:
    """How ``release`` stands to the releases that accept ``arch``: ``too-old`` (before the first),
    ``dropped`` (at or after its removal), ``inside`` (a release that accepts it: the nvcc that failed was
    another one, or the arch is not what it seems), None when either is unknown."""
    if not arch or not release:
        return None
    first, removed = arch_releases(arch)
    if first is not None and release_key(release) < release_key(first):
        return "too-old"
    if removed is not None and release_key(release) >= release_key(removed):
        return "dropped"
    if first is not None:
        return "inside"
    return None


def arch_below_buildable(need: str, since: str) -> bool:
    """Whether some toolkit release from ``since`` on builds for an architecture below ``need`` (``sm_30``).

    An intrinsic that the headers declare only from ``need`` on can be hidden by that guard only in a build for
    an older architecture, and only a toolkit that declares the intrinsic can have the guard: CUDA 9.0 added the
    ``*_sync`` warp intrinsics (guarded ``__CUDA_ARCH__ >= 300``) and removed Fermi (sm_20/21), the last
    architectures below sm_30, so no toolkit has both and the guard can never be what hides them.

    >>> arch_below_buildable("sm_30", "9.0"), arch_below_buildable("sm_30", "8.0"), arch_below_buildable("sm_80", "11.0")
    (False, True, True)
    """
    m = _ARCH.match(need.strip())
    if not m:
        return True
    need_n = int(re.sub(r"\D", "", m.group(1)))
    for key, (_first, removed) in _table().items():
        if key.isdigit() and int(key) < need_n and (removed is None or release_key(removed) > release_key(since)):
            return True
    return False
