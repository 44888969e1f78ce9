import torch


def main() -> None:
    torch.manual_seed(0)
    device = "cuda"
    M, N, K = 1024, 1024, 1024

    # Generate inputs in float32 first
    a_fp32 = torch.randn((M, K), device=device, dtype=torch.float32)
    b_fp32 = torch.randn((M, K), device=device, dtype=torch.float32)

    # Compute float32 reference
    ref = a_fp32 @ b_fp32

    # Try FP8 matmul if supported
    try:
        a_fp8 = a_fp32.to(torch.float8_e4m3fn)
        b_fp8 = b_fp32.to(torch.float8_e4m3fn)
        result = (a_fp8 @ b_fp8)

        # FP8 matmul returns float32 on supported hardware
        fp8_result = result.float()
        # Use FP8-appropriate tolerance (higher precision loss than bf16/fp16)
        err = (fp8_result - ref).abs().max().item()
        rtol_err = (fp8_result - ref).abs().div(ref.abs().add(1e-8)).max().item()
        print(f"fp8_max_abs_err={err:.6f}")
        print(f"fp8_max_rel_err={rtol_err:.6f}")
        print(f"fp8_supported=True")
    except Exception as e:
        print(f"fp8_supported=False")
        print(f"fp8_error={str(e)}")
        fp8_result = ref
        err = 0.0
        rtol_err = 0.0

    torch.cuda.synchronize()
    print(f"ref_sum={ref.sum().item():.6f}")


if __name__ == "__main__":
    main()
