"""The software stack, found without importing torch, triton or cupy in kdiag's process.

Every entry is a *field*: ``{"value": ..., "from": "<where it was read>"}``, plus ``"error"`` when the
source failed (``{"value": None, "from": "exec:nvcc --version", "error": "not found on PATH ..."}``).

Where things come from, cheapest first (measured on the 2-core dev machine, about 40 ms in all):

- package versions: ``importlib.metadata`` (one pass over the installed distributions);
- torch's CUDA version: ``torch/version.py`` read as text (``cuda = '12.8'`` / ``None`` for a CPU build);
  its arch list is compiled into ``torch._C``, so it needs a child ``python -c`` (0.9-1.6 s here,
  ``probe_torch=True``, ``kdiag env --probe-torch``); a CPU build has none, which needs no probe;
- torch's triton pin: torch's ``Requires-Dist: triton==X`` (CUDA builds carry it);
- nvcc / ptxas / compute-sanitizer: the binary's ``--version`` (about 8 ms each);
- the CUDA runtime: ``cudaRuntimeGetVersion`` from ``libcudart`` through ctypes, which needs no driver;
- libcuda / libnvidia-ml / libnvrtc: the ``ldconfig -p`` cache, ``LD_LIBRARY_PATH``, the CUDA toolkit
  and the ``nvidia-*`` wheels' ``lib`` folders; located, never loaded.
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import fnmatch
import glob
import importlib.metadata as md
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

Field = dict[str, Any]

#: distributions worth naming in a report (prefix match on the normalised name)
PACKAGE_PREFIXES = (
    "torch",
    "triton",
    "pytorch-triton",
    "cupy",
    "numpy",
    "nvidia-",
    "cuda-python",
    "cuda-bindings",
    "jax",
)

TORCH_PROBE = (
    "import json, torch\n"
    "flags = getattr(torch._C, '_cuda_getArchFlags', lambda: None)()\n"
    "print(json.dumps({'version': torch.__version__, 'cuda': torch.version.cuda,\n"
    "                  'arch_list': flags.split() if flags else []}))\n"
)


def ok(value: Any, src: str) -> Field:
    return {"value": value, "from": src}


def failed(src: str, why: str) -> Field:
    return {"value": None, "from": src, "error": why}


# --- where to look ------------------------------------------------------------------------


def site_dirs() -> list[Path]:
    """site-packages folders of this interpreter (where the wheels' nvidia/* folders live)."""
    out: list[Path] = []
    for p in sys.path:
        if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir() and Path(p) not in out:
            out.append(Path(p))
    return out


def cuda_homes(env: Mapping[str, str]) -> list[Path]:
    out: list[Path] = []
    for p in (env.get("CUDA_HOME"), env.get("CUDA_PATH"), "/usr/local/cuda"):
        if p and Path(p).is_dir() and Path(p) not in out:
            out.append(Path(p))
    return out


def _ldconfig_cache() -> dict[str, str]:
    """soname → path from ``ldconfig -p`` (what the dynamic loader finds without LD_LIBRARY_PATH)."""
    exe = shutil.which("ldconfig") or next(
        (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.path.exists(p)), None
    )
    if exe is None:
        return {}
    try:
        out = subprocess.run([exe, "-p"], capture_output=True, text=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    cache: dict[str, str] = {}
    for line in out.splitlines():
        m = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        # "(libc6)" alone is a 32-bit library on a 64-bit system: not what our processes load
        if m and not (m.group(2) == "libc6" and sys.maxsize > 2**32):
            cache.setdefault(m.group(1), m.group(3))
    return cache


def find_library(
    patterns: tuple[str, ...], env: Mapping[str, str], ldcache: Mapping[str, str], *, wheel_dirs: tuple[str, ...] = ()
) -> Field:
    """The first file matching one of ``patterns`` (globs of a soname) in the loader's search order."""
    dirs: list[str] = [d for d in env.get("LD_LIBRARY_PATH", "").split(":") if d]
    for sd in site_dirs():
        dirs += [str(sd / w) for w in wheel_dirs]
    for home in cuda_homes(env):
        dirs += [str(home / "lib64"), str(home / "lib"), str(home / "compat")]
    dirs += ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/lib/wsl/lib"]
    for d in dirs:
        for pat in patterns:
            hits = sorted(glob.glob(os.path.join(d, pat)))
            if hits:
                return ok(hits[0], f"search:{d}")
    for pat in patterns:
        for name, path in ldcache.items():
            if fnmatch.fnmatch(name, pat):
                return ok(path, "ldconfig -p")
    return failed(
        "search",
        f"no {' or '.join(patterns)} in LD_LIBRARY_PATH, the CUDA toolkit, the nvidia wheels, "
        "the system library folders or the ldconfig cache",
    )


def find_binary(name: str, env: Mapping[str, str], *, extra: tuple[Path, ...] = ()) -> str | None:
    hit = shutil.which(name, path=env.get("PATH", os.defpath))
    if hit:
        return hit
    candidates = [home / "bin" / name for home in cuda_homes(env)] + list(extra)
    for sd in site_dirs():
        candidates += [sd / "nvidia" / "cu13" / "bin" / name, sd / "nvidia" / "cuda_nvcc" / "bin" / name]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return None


def _run_version(exe: str, pattern: str, *, flag: str = "--version", timeout: float = 10) -> Field:
    src = f"exec:{exe} {flag}"
    try:
        proc = subprocess.run(
            [exe, flag], capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return failed(src, f"timed out after {timeout:g} s")
    except OSError as e:
        return failed(src, f"{type(e).__name__}: {e}")
    m = re.search(pattern, proc.stdout + proc.stderr)
    if not m:
        return failed(src, f"exit {proc.returncode}, no version in its output")
    return ok({"path": exe, **m.groupdict()}, src)


# --- the parts ------------------------------------------------------------------------------


def packages() -> dict[str, Field]:
    out: dict[str, Field] = {}
    for dist in md.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name.startswith(PACKAGE_PREFIXES) and name not in out:
            out[name] = ok(dist.version, f"metadata:{name}")
    return dict(sorted(out.items()))


def _dist_version(name: str) -> str | None:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def torch_info(env: Mapping[str, str], *, probe: bool = False, timeout: float = 60) -> dict[str, Field]:
    out: dict[str, Field] = {}
    version = _dist_version("torch")
    if version is None:
        return {"version": failed("metadata:torch", "torch is not installed")}
    out["version"] = ok(version, "metadata:torch")
    spec = importlib.util.find_spec("torch")  # finds the package folder; does not import it
    vfile = Path(spec.origin).parent / "version.py" if spec and spec.origin else None
    values: dict[str, Any] = {}
    if vfile and vfile.is_file():
        for line in vfile.read_text(errors="replace").splitlines():
            m = re.match(r"^(\w+)\s*(?::[^=]*)?=\s*(.+)$", line)
            if m:
                with contextlib.suppress(ValueError, SyntaxError):
                    values[m.group(1)] = ast.literal_eval(m.group(2).strip())
        out["cuda"] = ok(values.get("cuda"), f"file:{vfile}")
        out["hip"] = ok(values.get("hip"), f"file:{vfile}")
    else:
        out["cuda"] = failed("file:torch/version.py", "torch/version.py not found")
    pin = None
    for req in md.requires("torch") or []:
        m = re.match(r"^\s*(triton|pytorch-triton)\s*==\s*([^;\s]+)", req)
        if m:
            pin = f"{m.group(1)}=={m.group(2)}"
    out["triton_pin"] = ok(pin, "metadata:torch Requires-Dist")
    cuda = out["cuda"].get("value")
    if "error" not in out["cuda"] and cuda is None:
        out["arch_list"] = ok([], f"file:{vfile} (a CPU build has no CUDA arch list)")
    elif probe:
        out["arch_list"] = _probe_torch(env, timeout)
    else:
        out["arch_list"] = failed(
            "child:python -c torch._C._cuda_getArchFlags()",
            "not probed: importing torch takes seconds; ask with --probe-torch",
        )
    return out


def _probe_torch(env: Mapping[str, str], timeout: float) -> Field:
    import json

    src = "child:python -c torch._C._cuda_getArchFlags()"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", TORCH_PROBE],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return failed(src, f"timed out after {timeout:g} s")
    except OSError as e:
        return failed(src, f"{type(e).__name__}: {e}")
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return failed(src, f"exit {proc.returncode}: {tail[:300]}")
    try:
        data = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return failed(src, "no JSON in the child's output")
    return ok(list(data.get("arch_list") or []), src)


def triton_info(env: Mapping[str, str]) -> dict[str, Field]:
    version = _dist_version("triton") or _dist_version("pytorch-triton")
    if version is None:
        return {"version": failed("metadata:triton", "triton is not installed")}
    out = {"version": ok(version, "metadata:triton")}
    if env.get("TRITON_PTXAS_PATH"):
        p = env["TRITON_PTXAS_PATH"]
        out["ptxas"] = (
            ok(p, "env:TRITON_PTXAS_PATH")
            if os.path.isfile(p)
            else failed("env:TRITON_PTXAS_PATH", f"{p} does not exist")
        )
        return out
    spec = importlib.util.find_spec("triton")
    bundled = Path(spec.origin).parent / "backends" / "nvidia" / "bin" / "ptxas" if spec and spec.origin else None
    if bundled and bundled.is_file():
        out["ptxas"] = ok(str(bundled), "file:triton/backends/nvidia/bin")
    else:
        out["ptxas"] = failed("file:triton/backends/nvidia/bin", "triton ships no ptxas here")
    return out


_NV_VERSION = r"release (?P<release>\d+\.\d+), V(?P<version>[\d.]+)"


def nvcc_info(env: Mapping[str, str]) -> Field:
    exe = find_binary("nvcc", env)
    if exe is None:
        return failed("search:PATH, CUDA_HOME, /usr/local/cuda, nvidia wheels", "nvcc not found")
    return _run_version(exe, _NV_VERSION)


def ptxas_info(env: Mapping[str, str]) -> Field:
    exe = find_binary("ptxas", env)
    if exe is None:
        return failed("search:PATH, CUDA_HOME, /usr/local/cuda, nvidia wheels", "ptxas not found")
    return _run_version(exe, _NV_VERSION)


def sanitizer_info(env: Mapping[str, str]) -> Field:
    extra: list[Path] = [home / "compute-sanitizer" / "compute-sanitizer" for home in cuda_homes(env)]
    for sd in site_dirs():  # the nvidia-cuda-sanitizer-api wheel
        extra += [
            Path(p) for p in sorted(glob.glob(str(sd / "nvidia" / "*" / "compute-sanitizer" / "compute-sanitizer")))
        ]
        extra += [Path(p) for p in sorted(glob.glob(str(sd / "nvidia" / "*" / "bin" / "compute-sanitizer")))]
    exe = find_binary("compute-sanitizer", env, extra=tuple(extra))
    wheel = _dist_version("nvidia-cuda-sanitizer-api")
    if exe is None:
        why = "compute-sanitizer not found"
        if wheel:
            why += (
                f" (nvidia-cuda-sanitizer-api {wheel} is installed but has no compute-sanitizer binary where expected)"
            )
        return failed("search:PATH, CUDA_HOME, nvidia-cuda-sanitizer-api wheel", why)
    got = _run_version(exe, r"Version (?P<version>[\d.]+)")
    if wheel and got.get("value") is not None:
        got["value"]["wheel"] = wheel
    return got


def cudart_candidates(env: Mapping[str, str], ldcache: Mapping[str, str]) -> list[str]:
    """libcudart files in the order a Python framework / nvcc-built binary would pick them up."""
    found: list[str] = []
    dirs = [sd / w for sd in site_dirs() for w in ("nvidia/cu13/lib", "nvidia/cuda_runtime/lib")]
    dirs += [home / sub for home in cuda_homes(env) for sub in ("lib64", "lib")]
    for d in dirs:
        for p in sorted(glob.glob(str(d / "libcudart.so.*"))):
            if re.search(r"libcudart\.so\.\d+$", p) and os.path.realpath(p) not in map(os.path.realpath, found):
                found.append(p)
    for name, path in ldcache.items():
        if re.fullmatch(r"libcudart\.so\.\d+", name) and os.path.realpath(path) not in map(os.path.realpath, found):
            found.append(path)
    return found


def runtime_version(path: str) -> Field:
    """``cudaRuntimeGetVersion`` of one libcudart (needs no driver and creates no context)."""
    src = f"ctypes:{path}:cudaRuntimeGetVersion"
    try:
        lib = ctypes.CDLL(path)
        v = ctypes.c_int(0)
        rc = lib.cudaRuntimeGetVersion(ctypes.byref(v))
    except (OSError, AttributeError) as e:
        return failed(src, f"{type(e).__name__}: {e}")
    if rc != 0:
        return failed(src, f"cudaRuntimeGetVersion returned {rc}")
    return ok({"path": path, "version": v.value}, src)


def runtime_info(env: Mapping[str, str], ldcache: Mapping[str, str]) -> Field:
    cands = cudart_candidates(env, ldcache)
    if not cands:
        return failed("search:nvidia wheels, CUDA_HOME, ldconfig -p", "no libcudart.so found")
    got = runtime_version(cands[0])  # only the first is loaded; the others are named by file
    if got.get("value") is not None and len(cands) > 1:
        got["value"]["others"] = cands[1:]
    return got


def library_info(env: Mapping[str, str], ldcache: Mapping[str, str]) -> dict[str, Field]:
    return {
        # libcuda and libnvidia-ml come with the driver, not the toolkit
        "libcuda": find_library(("libcuda.so.1",), env, ldcache),
        "libnvidia-ml": find_library(("libnvidia-ml.so.1",), env, ldcache),
        "libnvrtc": find_library(
            ("libnvrtc.so.1[0-9]", "libnvrtc.so.1[0-9].*"),
            env,
            ldcache,
            wheel_dirs=("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"),
        ),
    }


def collect(env: Mapping[str, str], *, probe_torch: bool = False) -> dict[str, Any]:
    """The whole software part of a snapshot."""
    ldcache = _ldconfig_cache()
    return {
        "python": ok({"version": platform.python_version(), "executable": sys.executable}, "sys"),
        "packages": packages(),
        "torch": torch_info(env, probe=probe_torch),
        "triton": triton_info(env),
        "nvcc": nvcc_info(env),
        "ptxas": ptxas_info(env),
        "cuda_runtime": runtime_info(env, ldcache),
        "compute_sanitizer": sanitizer_info(env),
        "libraries": library_info(env, ldcache),
    }
