"""numpy 的 Transformer（nlpbook）与 PyTorch（CPU）并排计时（这是测量，不是测试）。

  /path/to/venv-with-torch/bin/python benchmarks/transformer_vs_torch.py [--rounds 3] [--reps 15]

PyTorch 只是这个测量的可选依赖，不是课程依赖：需要一个装了 torch、numpy 和本包（pip install -e . --no-deps）的环境。
两边形状相同、都用 float32：
1. 多头注意力前向 + 反向：batch 32、T 64、d 128、4 个 head、因果遮罩，带偏置。
   nlpbook：attention.mha_forward + mha_backward；PyTorch：同样的矩阵乘法 + softmax 写法（autograd 反向），
   另列 F.scaled_dot_product_attention（融合的注意力核）作参考。
2. 小 Transformer 语言模型的一步训练：词表 3311（真实评论的字表大小）、d 128、2 层 Pre-LN、4 个 head、
   FFN 512（GELU tanh 近似）、可学习位置、不共享输出层；batch 32 × 64 个 token；
   损失 + 全部梯度 + 全局范数裁剪 1.0 + AdamW（β2 0.99，权重衰减 0.01 只作用于矩阵）。
   nlpbook：transformer.lm_loss_and_grads + optim.Adam；PyTorch：同一组权重的函数式写法 + torch.optim.AdamW。
   先在同一进程里核对两边的损失与梯度一致，再计时。
线程：1 个（绑到 0 号核）与 2 个（绑到 0、1 号核）；numpy 的矩阵乘法用 OpenBLAS（OPENBLAS_NUM_THREADS），
其余逐元素运算是单线程；PyTorch 用 torch.set_num_threads。每种库在单独的子进程里测（免得两边的线程池互相空转抢核），
numpy 与 torch 的子进程交替跑 rounds 轮；打印各轮中位数的中位数、所有次里最快的一次（机器上还有别的进程时，
最快一次更接近两边本身的快慢），以及比值（nlpbook / PyTorch，小于 1 表示 nlpbook 更快）。
glibc：默认给子进程设 MALLOC_TRIM_THRESHOLD_、MALLOC_MMAP_THRESHOLD_（让 malloc 留着释放的大块内存，
不必每步重新向系统要页），两边相同；--no-malloc-tune 可关掉，对比其影响。
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SHAPE = dict(B=32, T=64, d=128, h=4, V=3311, L=2, d_ff=512)
MALLOC_ENV = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_MMAP_THRESHOLD_": str(1 << 30),
              "MALLOC_TOP_PAD_": str(64 << 20)}


# ---------- 两边的实现 ----------
def numpy_setup():
    import numpy as np
    from nlpbook.attention import causal_mask, init_mha_params, mha_backward, mha_forward
    from nlpbook.optim import Adam
    from nlpbook.transformer import init_lm_params, lm_loss_and_grads
    s, rng = SHAPE, np.random.default_rng(0)
    x = rng.standard_normal((s["B"], s["T"], s["d"])).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    ap = init_mha_params(s["d"], rng)
    mask = causal_mask(s["T"])
    P = init_lm_params(s["V"], s["d"], s["L"], s["h"], s["d_ff"], s["T"], rng)
    ids = rng.integers(0, s["V"], (s["B"], s["T"] + 1))
    opt = Adam(1e-3, beta2=0.99, weight_decay=0.01, clip=1.0)

    def attention():
        out, cache = mha_forward(x, ap, s["h"], mask)
        return mha_backward(g, cache)

    def train_step():
        loss, grads = lm_loss_and_grads(P, ids[:, :-1], ids[:, 1:])
        opt.step(P, grads)
        return loss

    return {"attention": attention, "train_step": train_step}, (x, g, ap, P, ids)


def torch_functions(data, threads: int):
    import numpy as np
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    s = SHAPE
    x_np, g_np, ap_np, P_np, ids_np = data
    x = torch.from_numpy(x_np.copy()).requires_grad_()
    g = torch.from_numpy(g_np.copy())
    ap = {k: torch.from_numpy(v.copy()).requires_grad_() for k, v in ap_np.items()}
    causal = torch.ones(s["T"], s["T"], dtype=torch.bool).tril()

    def mha(xx, p, fused):
        B, T, d = xx.shape
        h = s["h"]

        def proj(w, b):
            return (xx @ p[w] + p[b]).view(B, T, h, d // h).transpose(1, 2)

        q, k, v = proj("Wq", "bq"), proj("Wk", "bk"), proj("Wv", "bv")
        if fused:
            ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            sc = (q @ k.transpose(-1, -2)) * (1.0 / (d // h) ** 0.5)
            ctx = torch.softmax(sc.masked_fill(~causal[:T, :T], float("-inf")), dim=-1) @ v
        return ctx.transpose(1, 2).reshape(B, T, d) @ p["Wo"] + p["bo"]

    def attention(fused=False):
        for t in [x, *ap.values()]:
            t.grad = None
        mha(x, ap, fused).backward(g)

    P = {k: torch.from_numpy(np.asarray(v).copy()).requires_grad_() for k, v in P_np.items() if k != "config"}
    ids = torch.from_numpy(ids_np)

    def lm_loss(inp, tgt):
        B, T = inp.shape
        hid = P["tok_emb"][inp] + P["pos_emb"][:T]
        for i in range(s["L"]):
            p = {k.split(".", 1)[1]: v for k, v in P.items() if k.startswith(f"L{i}.")}
            hid = hid + mha(F.layer_norm(hid, (s["d"],), p["ln1_g"], p["ln1_b"], 1e-5), p, fused=False)
            f = F.layer_norm(hid, (s["d"],), p["ln2_g"], p["ln2_b"], 1e-5)
            hid = hid + F.gelu(f @ p["W1"] + p["b1"], approximate="tanh") @ p["W2"] + p["b2"]
        hid = F.layer_norm(hid, (s["d"],), P["lnf_g"], P["lnf_b"], 1e-5)
        z = hid @ P["W_out"] + P["b_out"]
        return F.cross_entropy(z.view(-1, s["V"]), tgt.reshape(-1))

    decay = [v for v in P.values() if v.ndim >= 2]
    other = [v for v in P.values() if v.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": other, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99), eps=1e-8)

    def train_step():
        opt.zero_grad(set_to_none=True)
        loss = lm_loss(ids[:, :-1], ids[:, 1:])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(P.values()), 1.0)
        opt.step()
        return float(loss)

    return {"attention": attention, "attention_sdpa": lambda: attention(True), "train_step": train_step}, P, lm_loss


# ---------- 子进程：只测一个库 ----------
def child(lib: str, threads: int, reps: int) -> None:
    fns, data = numpy_setup()
    if lib == "torch":
        fns = torch_functions(data, threads)[0]
    out = {}
    for name, fn in fns.items():
        for _ in range(3):
            fn()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        out[name] = [statistics.median(ts) * 1000, min(ts) * 1000]
    print(json.dumps(out))


def check_equal() -> None:
    """同一组权重与同一批数据：两边的损失、梯度应一致（float32 舍入以内）。"""
    import numpy as np
    from nlpbook.transformer import lm_loss_and_grads
    _, data = numpy_setup()
    _, P_t, lm_loss = torch_functions(data, 1)
    P_np, ids = data[3], data[4]
    loss_np, grads = lm_loss_and_grads(P_np, ids[:, :-1], ids[:, 1:])
    import torch
    loss_t = lm_loss(torch.from_numpy(ids[:, :-1]), torch.from_numpy(ids[:, 1:]))
    loss_t.backward()
    diff = sum(float(((grads[k] - P_t[k].grad.numpy()) ** 2).sum()) for k in grads)
    ref = sum(float((P_t[k].grad.numpy() ** 2).sum()) for k in grads)
    print(f"一致性核对：损失 nlpbook {loss_np:.6f}，PyTorch {loss_t.item():.6f}；"
          f"全部梯度拼成一个向量的相对差 ‖Δ‖/‖g‖ = {(diff / ref) ** 0.5:.1e}")
    # 优化器：同样的梯度走 3 步（裁剪 1.0 + AdamW），optim.Adam 与 torch.optim.AdamW 的参数应一致
    from nlpbook.optim import Adam
    opt = Adam(1e-3, beta2=0.99, weight_decay=0.01, clip=1.0)
    P_a = {k: P_np[k].copy() for k in grads}
    P_b = {k: torch.tensor(P_np[k].copy(), requires_grad=True) for k in grads}
    topt = torch.optim.AdamW([{"params": [v for v in P_b.values() if v.ndim >= 2], "weight_decay": 0.01},
                              {"params": [v for v in P_b.values() if v.ndim < 2], "weight_decay": 0.0}],
                             lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
    for _ in range(3):
        opt.step(P_a, grads)
        for k, v in P_b.items():
            v.grad = torch.from_numpy(grads[k].copy())
        torch.nn.utils.clip_grad_norm_(list(P_b.values()), 1.0)
        topt.step()
    d = sum(float(((P_a[k] - P_b[k].detach().numpy()) ** 2).sum()) for k in grads)
    r = sum(float(((P_a[k] - P_np[k]) ** 2).sum()) for k in grads)
    print(f"优化器核对：3 步 AdamW 之后两边参数之差 / 参数改变量 = {(d / r) ** 0.5:.1e}")


def run_child(lib: str, threads: int, reps: int, malloc_tune: bool) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    for k in MALLOC_ENV:
        env.pop(k, None)
    if malloc_tune:
        env.update(MALLOC_ENV)
    cores = ",".join(str(c) for c in range(threads))
    cmd = ["taskset", "-c", cores, sys.executable, __file__, "--child", lib, "--threads", str(threads),
           "--reps", str(reps)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--no-malloc-tune", action="store_true")
    ap.add_argument("--child", choices=["numpy", "torch"])
    a = ap.parse_args()
    if a.child:
        child(a.child, a.threads[0], a.reps)
        return
    import numpy
    import torch
    print(f"numpy {numpy.__version__}，torch {torch.__version__}；形状 {SHAPE}；float32；"
          f"glibc 调优 {'关' if a.no_malloc_tune else '开'}；{a.rounds} 轮 × {a.reps} 次")
    check_equal()
    names = {"attention": "注意力 前向+反向", "attention_sdpa": "  （PyTorch 用 SDPA 融合核）",
             "train_step": "语言模型一步训练"}
    for threads in a.threads:
        runs = {"numpy": [], "torch": []}
        for _ in range(a.rounds):
            for lib in runs:
                runs[lib].append(run_child(lib, threads, a.reps, not a.no_malloc_tune))
        med = {lib: {k: statistics.median(r[k][0] for r in rs) for k in rs[0]} for lib, rs in runs.items()}
        best = {lib: {k: min(r[k][1] for r in rs) for k in rs[0]} for lib, rs in runs.items()}
        print(f"\n{threads} 个线程（taskset -c {','.join(str(c) for c in range(threads))}）；"
              f"中位数（各轮中位数的中位数）| 最快一次（机器繁忙时更能反映本身的快慢）")
        print(f"{'':26s}{'nlpbook':>9s}{'PyTorch':>9s}{'比值':>7s}  |{'nlpbook':>9s}{'PyTorch':>9s}{'比值':>7s}")
        for key, label in names.items():
            src = "attention" if key == "attention_sdpa" else key
            row = ""
            for table in (med, best):
                n, t = table["numpy"][src], table["torch"][key]
                row += f"{n:9.1f}{t:9.1f}{n / t:6.2f}×  |"
            print(f"{label:26s}{row[:-3]}")
        print(f"（毫秒；系统负载 {os.getloadavg()[0]:.1f}）")


if __name__ == "__main__":
    main()
