import torch, time
torch.backends.cuda.matmul.allow_tf32 = True
for dt, name in [(torch.float32, "tf32"), (torch.float16, "fp16"), (torch.bfloat16, "bf16"), (torch.float32, "fp32")]:
    if name == "fp32":
        torch.backends.cuda.matmul.allow_tf32 = False
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt)
    for _ in range(3): c = a @ b
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(10):
        s.record(); c = a @ b; e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); ms = ts[len(ts)//2]
    print(f"cuBLAS (torch) {name} 8192^3: {ms:.3f} ms, {2*n**3/ms/1e9:.1f} TFLOP/s")
