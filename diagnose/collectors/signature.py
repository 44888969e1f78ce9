"""A demangled C++ function signature as tools print it: the function's own name apart from its types.

compute-sanitizer, cuda-gdb and backtraces print a device function demangled, with the return type of a
function template in front of its name and the template arguments and parameters after it::

    cuda::std::__4::pair<int, int> cudf::io::parquet::detail::<unnamed>::page_bounds<unsigned char, (int)512>(...)

The library that owns a kernel is the namespace of the function's own qualified name
(``cudf::io::parquet::...::page_bounds``), never a namespace that appears only in its return type
(``cuda::std::pair``), its template arguments or its parameter types.

>>> strip_return_type("cuda::std::__4::pair<int, int> cudf::detail::page_bounds<unsigned char, (int)512>(int *)+0x7c20")
'cudf::detail::page_bounds<unsigned char, (int)512>(int *)+0x7c20'
>>> strip_return_type("void kernel<float>(float *, int)")
'kernel<float>(float *, int)'
>>> strip_return_type("unsigned long long (anonymous namespace)::count(int)")
'(anonymous namespace)::count(int)'
>>> strip_return_type("unaligned_kernel():0x160 in memcheck_demo.cu:6")
'unaligned_kernel():0x160 in memcheck_demo.cu:6'
>>> strip_return_type("kernel+0x30 in some dir/file.cu:44")
'kernel+0x30 in some dir/file.cu:44'
>>> own_name("cuda::std::__4::pair<int, int> cudf::detail::page_bounds<cub::Sum, (int)512>(thrust::pair<int, int> *)+0x7c20 in a.cu:3")
'cudf::detail::page_bounds<>()+0x7c20 in a.cu:3'
>>> strip_return_type("void paddle::operators::kernel<float4>(int)")
'paddle::operators::kernel<float4>(int)'
>>> own_name("void cub::CUB_200200_NS::DeviceReduceSingleTileKernel<cudf::DeviceMin>(int)")
'cub::CUB_200200_NS::DeviceReduceSingleTileKernel<>()'
"""

from __future__ import annotations

import re

_OPERATOR = re.compile(r"\boperator\b")
_OPEN = "<(["
_CLOSE = ">)]"


def _name_start(sig: str) -> int:
    """Where the function's own name starts: after the last space outside brackets that comes before
    its parameter list, its ``+0x`` offset or a `` in file`` suffix; 0 when there is no return type."""
    if _OPERATOR.search(sig):  # operator<, operator() ...: brackets that do not nest
        return 0
    depth = 0
    start = 0
    for i, ch in enumerate(sig):
        if ch in _OPEN:
            # a parameter list follows the name itself; "(anonymous namespace)" starts a name
            if ch == "(" and depth == 0 and i > 0 and (sig[i - 1].isalnum() or sig[i - 1] in "_>"):
                break
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        elif depth == 0:
            if ch == "+" or sig.startswith(" in ", i):
                break
            if ch == " ":
                start = i + 1
    return start


def strip_return_type(sig: str) -> str:
    """``sig`` without the return type printed in front of the function's name (``void``, a type)."""
    sig = sig.strip()
    return sig[_name_start(sig) :]


def own_name(sig: str) -> str:
    """``sig`` with its return type dropped and the contents of its template argument and parameter
    lists emptied: what is left names only the function's own namespace (and any source path after it)."""
    sig = strip_return_type(sig)
    if _OPERATOR.search(sig):
        return sig
    out: list[str] = []
    depth = 0
    for ch in sig:
        if ch in _OPEN:
            if depth == 0:
                out.append(ch)
            depth += 1
            continue
        if ch in _CLOSE and depth:
            depth -= 1
            if depth == 0:
                out.append(ch)
            continue
        if depth == 0:
            out.append(ch)
    return "".join(out)
