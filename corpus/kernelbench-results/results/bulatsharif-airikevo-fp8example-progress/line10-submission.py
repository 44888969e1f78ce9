import torch


def main() -> None:
    torch.manual_seed(0)
    device = "cuda"
    M, N, K = 1024, 1024, 1024

    # Generate inputs in float32 first
    a_fp32 = torch.randn((M, K), device=device, dtype=torch.float32)
    b_fp32 = torch.randn((K, N), device=device, dtype=torch.float32)

    # Compute float32 reference
    ref = a_fp32 @ b_fp32

    # Try FP8 matmul via torch._scaled_mm
    fp8_supported = False
    err = 0.0
    rtol_err = 0.0
    fp8_result = ref

    try:
        a_fp8 = a_fp32.to(torch.float8_e4m3fn)
        b_fp8 = b_fp32.to(torch.float8_e4m3fn)

        # Compute scaling factors (max abs / 448 is the standard for e4m3fn)
        scale_a = a_fp32.abs().amax() / 448.0
        scale_b = b_fp32.abs().amax() / 448.0
        scale_out = scale_a * scale_b

        # FP8 matmul via scaled_mm
        fp8_result, _ = torch._scaled_mm(
            a_fp8, b_fp8.t(),
            out_dtype=torch.float32,
            scale_a=torch.tensor(scale_a, device=device),
            scale_b=torch.tensor(scale_b, device=device),
            bias=None,
        )

        # Use FP8-appropriate tolerance (higher precision loss than bf16/fp16)
        err = (fp8_result - ref).abs().max().item()
        rtol_err = (fp8_result - ref).abs().div(ref.abs().add(1e-8)).max().item()
        fp8_supported = True
        print(f"fp8_supported=True")
    except Exception as e:
        print(f"fp8_supported=False")
        print(f"fp8_error={str(e)}")

    torch.cuda.synchronize()
    print(f"ref_sum={ref.sum().item():.6f}")
    print(f"fp8_max_abs_err={err:.6f}")
    print(f"fp8_max_rel_err={rtol_err:.6f}")


if __name__ == "__main__":
    main()
