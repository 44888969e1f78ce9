"""A kernel log with only application Xids (31: an MMU fault) does not say whose access faulted: the
kernel's, a compiler's generated code, or the driver's. kdiag lists the kernel as a candidate and abstains."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log


def test_an_xid_31_alone_leaves_the_owner_open() -> None:
    # NVIDIA/open-gpu-kernel-modules#1208: Xid 31 lines of a JAX program, nothing else
    report = classify_text(corpus_log("holdout12", "jax-rtx5090-xid31-after-many-jit-compilations"))
    assert report.status == "unknown"


def test_another_xid_31_record_alone_also_leaves_it_open() -> None:
    # the driver's Xid 31 record (NVRM's MMU fault report, as in the rule's own description) for a write
    log = (
        "NVRM: Xid (PCI:0000:65:00): 31, pid=4121, name=python, Ch 00000008, intr 10000000. MMU Fault: ENGINE "
        "GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f_2a000000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_WRITE\n"
    )
    assert classify_text(log).status == "unknown"
