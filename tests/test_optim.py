"""optim：唯一的 Adam 更新（类与函数式写法逐位相同，与 PyTorch 的公式一致）、裁剪、单线程 BLAS；
以及两条结构规则：只有 optim 导入 threadpoolctl；transformer 不导入 tiny_transformer，没有模块级 __getattr__。"""
import ast
import math
from pathlib import Path

import numpy as np
import pytest

from nlpbook import optim as OP

PKG = Path(__file__).resolve().parents[1] / "nlpbook"


def reference_adamw(p, grads, lr, b1, b2, eps, wd):
    """PyTorch 文档里 AdamW 的伪代码逐行照写（float64，不用 optim 的任何代码）：
    θ ← θ − lr·λ·θ；m ← β1·m + (1−β1)·g；v ← β2·v + (1−β2)·g²；θ ← θ − lr·m̂/(√v̂ + ε)。"""
    p, m, v, out = p.copy(), np.zeros_like(p), np.zeros_like(p), []
    for t, g in enumerate(grads, start=1):
        p = p - lr * wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        out.append(p.copy())
    return out


def _grads(shape, n=6, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape) * 10.0 ** rng.integers(-6, 1) for _ in range(n)]


@pytest.mark.parametrize("wd, eps", [(0.0, 1e-8), (0.01, 1e-8), (0.0, 1e-3)])
def test_adam_matches_the_pytorch_formula_step_by_step(wd, eps):
    """包括梯度很小（1e-6）的步：eps 加在 √v̂ 上（而不是 √v 上）时，这些步才对得上。"""
    p0, grads = np.random.default_rng(1).normal(size=(3, 4)), _grads((3, 4))
    want = reference_adamw(p0, grads, 0.01, 0.9, 0.99, eps, wd)
    P, opt = {"W": p0.copy()}, OP.Adam(0.01, beta2=0.99, eps=eps, weight_decay=wd)
    for g, w in zip(grads, want):
        opt.step(P, {"W": g})
        assert np.allclose(P["W"], w, rtol=1e-12, atol=1e-15)


def test_adam_matches_torch_when_installed():
    torch = pytest.importorskip("torch")
    p0, grads = np.random.default_rng(2).normal(size=(3, 4)), _grads((3, 4), seed=3)
    for cls, wd in ((torch.optim.Adam, 0.0), (torch.optim.AdamW, 0.01)):
        w = torch.tensor(p0.copy(), requires_grad=True)
        topt = cls([w], lr=0.01, betas=(0.9, 0.99), eps=1e-8, weight_decay=wd)
        P, opt = {"W": p0.copy()}, OP.Adam(0.01, beta2=0.99, weight_decay=wd)
        for g in grads:
            w.grad = torch.tensor(g)
            topt.step()
            opt.step(P, {"W": g})
            assert np.allclose(P["W"], w.detach().numpy(), rtol=1e-10, atol=1e-14)


def test_adam_step_is_the_same_update_as_the_class_bit_for_bit():
    """函数式 adam_step 与 Adam 类（不裁剪、无权重衰减）走的是同一段代码：float32 下也逐位相同。"""
    rng = np.random.default_rng(4)
    P1 = {"W": rng.normal(size=(5, 3)).astype(np.float32), "b": rng.normal(size=3).astype(np.float32)}
    P2 = {k: v.copy() for k, v in P1.items()}
    state, opt = {}, OP.Adam(0.005)
    for _ in range(5):
        g = {k: rng.normal(size=v.shape).astype(np.float32) * 1e-3 for k, v in P1.items()}
        n1 = OP.adam_step(P1, g, state, 0.005)
        n2 = opt.step(P2, g)
        assert n1 == n2
    assert all(np.array_equal(P1[k], P2[k]) for k in P1) and P1["W"].dtype == np.float32
    assert set(state) == {"t", "m_W", "v_W", "m_b", "v_b"} and state["t"] == 5
    assert np.array_equal(state["m_W"], opt.m["W"]) and np.array_equal(state["v_b"], opt.v["b"])


def test_clipping_then_adam_step_equals_the_class_with_clip():
    rng = np.random.default_rng(5)
    P1 = {"w": rng.normal(size=4)}
    P2, state, opt = {"w": P1["w"].copy()}, {}, OP.Adam(0.1, clip=1.0)
    for _ in range(3):
        g = {"w": rng.normal(size=4) * 5}
        clipped, norm = OP.clip_by_global_norm(g, 1.0)
        OP.adam_step(P1, clipped, state, 0.1)
        assert opt.step(P2, g) == pytest.approx(norm)
    assert np.allclose(P1["w"], P2["w"], rtol=1e-14)


def test_global_norm_and_clip_worked_example():
    assert OP.global_norm({"a": np.array([3.0]), "b": np.array([[4.0]])}) == 5.0
    g, n = OP.clip_by_global_norm({"a": np.array([3.0, 4.0], dtype=np.float32)}, 1.0)
    assert n == 5.0 and np.allclose(g["a"], [0.6, 0.8]) and g["a"].dtype == np.float32


@pytest.mark.parametrize("call, exc, match", [
    (lambda: OP.global_norm({}), TypeError, "非空"),
    (lambda: OP.global_norm({"a": np.array([np.nan])}), ValueError, "NaN"),
    (lambda: OP.adam_step({"a": np.ones(2)}, {"a": np.ones(2)}, None, 0.1), TypeError, "state"),
    (lambda: OP.adam_step({"a": [1.0, 2.0]}, {"a": np.ones(2)}, {}, 0.1), ValueError, "同形状"),
    (lambda: OP.adam_step({"a": np.ones(2)}, {"a": np.array([1.0, np.inf])}, {}, 0.1), ValueError, "NaN 或无穷大"),
    (lambda: OP.Adam(clip=0), ValueError, "clip"),
    (lambda: OP.Adam(weight_decay=-0.1), ValueError, "weight_decay"),
    (lambda: OP.Adam(eps=0), ValueError, "eps"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_a_rejected_gradient_leaves_params_and_state_alone():
    P, state = {"a": np.ones(2)}, {}
    with pytest.raises(ValueError):
        OP.adam_step(P, {"a": np.array([1.0, np.nan])}, state, 0.1)
    assert state == {} and np.array_equal(P["a"], np.ones(2))


# ---------- 单线程 BLAS ----------
def _blas_threads():
    from threadpoolctl import threadpool_info
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_single_thread_blas_limits_inside_and_restores_after():
    from threadpoolctl import threadpool_limits
    np.ones((2, 2)) @ np.ones((2, 2))  # 确保 BLAS 已加载
    with threadpool_limits(limits=2, user_api="blas"):  # 起点固定为 2，与机器的核数无关
        before = _blas_threads()
        assert before and all(n == 2 for n in before)
        with OP.single_thread_blas():
            assert all(n == 1 for n in _blas_threads())
        assert _blas_threads() == before
        with pytest.raises(RuntimeError):
            with OP.single_thread_blas():
                raise RuntimeError("出错时也恢复")
        assert _blas_threads() == before
        pin = OP.single_thread_blas()            # 不用 with：整章单线程，直到 restore_original_limits
        assert all(n == 1 for n in _blas_threads())
        pin.restore_original_limits()
        assert _blas_threads() == before


# ---------- 读源码的结构检查 ----------
def _modules():
    return sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def _imported_modules(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield ("." * node.level) + (node.module or "")
            if node.level and not node.module:
                yield from ("." + a.name for a in node.names)


def test_only_optim_imports_threadpoolctl():
    users = {p.relative_to(PKG).as_posix() for p in _modules()
             if any(m.split(".")[0] == "threadpoolctl" for m in _imported_modules(ast.parse(p.read_text("utf-8"))))}
    assert users == {"optim.py"}, f"这些模块直接导入了 threadpoolctl，应改用 optim.single_thread_blas：{users}"


def test_transformer_does_not_import_tiny_transformer():
    names = set(_imported_modules(ast.parse((PKG / "transformer.py").read_text("utf-8"))))
    assert not {n for n in names if n.split(".")[-1] == "tiny_transformer"}, names
    names = set(_imported_modules(ast.parse((PKG / "tiny_transformer.py").read_text("utf-8"))))
    assert ".transformer" in names   # 依赖只有一个方向


def test_no_module_level_getattr():
    bad = [p.relative_to(PKG).as_posix() for p in _modules()
           if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__"
                  for n in ast.parse(p.read_text("utf-8")).body)]
    assert bad == [], f"模块级 __getattr__（隐式转出别的模块的名字）：{bad}"


def test_the_optimiser_lives_only_in_optim():
    from nlpbook import layers, rnn_classifier, transformer
    for mod in (layers, rnn_classifier, transformer):
        for name in ("Adam", "adam_step", "clip_by_global_norm"):
            assert name not in getattr(mod, "__all__", ()), (mod.__name__, name)
    assert not hasattr(layers, "Adam") and not hasattr(transformer, "train_lm")
    assert math.isclose(OP.Adam().lr, 1e-3)
