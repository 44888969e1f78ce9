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
