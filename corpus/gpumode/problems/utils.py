"""Helpers shared by the problems of this set (in the folder above them, as GPU MODE keeps them)."""

import torch


def get_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def mismatches(received: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float) -> list[str]:
    if received.shape != expected.shape:
        return [f"shape {tuple(received.shape)} != {tuple(expected.shape)}"]
    received = received.to(expected.dtype)
    bad = (received - expected).abs() > atol + rtol * expected.abs()
    count = int(bad.sum())
    return [f"{count} mismatched elements"] if count else []


def make_match_reference(reference, rtol: float = 1e-5, atol: float = 1e-8):
    """check_implementation(data, output) -> (good, message), against ``reference(data)``."""

    def check(data, output):
        reasons = mismatches(output, reference(data), rtol, atol)
        return (not reasons), " ".join(reasons)

    return check


def verbose_allclose(received: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float, max_print: int = 5) -> list[str]:
    """Why two tensors differ, as messages (the count, then the first few elements); [] when they match."""
    if received.shape != expected.shape:
        return [f"SIZE MISMATCH: got {tuple(received.shape)}, expected {tuple(expected.shape)}"]
    diff = (received.float() - expected.float()).abs()
    bad = ~(diff <= atol + rtol * expected.float().abs())
    count = int(bad.sum())
    if not count:
        return []
    msgs = [f"Number of mismatched elements: {count}"]
    for idx in bad.nonzero()[:max_print]:
        i = tuple(idx.tolist())
        msgs.append(f"ERROR at {i}: {received[i].item()} {expected[i].item()}")
    return msgs


def make_verbose_match_reference(reference, rtol: float = 1e-5, atol: float = 1e-8):
    """check_implementation(data, output) -> (good, message), its message in the words of the repository's
    newer problems ("mismatch found! custom implementation doesn't match reference: ...")."""

    def check(data, output):
        reasons = verbose_allclose(output, reference(data), rtol=rtol, atol=atol)
        if reasons:
            return False, "mismatch found! custom implementation doesn't match reference: " + " ".join(reasons)
        return True, ""

    return check
