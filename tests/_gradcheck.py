"""测试共用的中心差分：手写梯度都拿它来对照。"""
import numpy as np


def numgrad(f, x, eps=1e-6):
    """∂f/∂x，f 接收与 x 同形状的数组：逐个元素 ±eps，不改动 x。"""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def numgrad_inplace(f, arr, eps=1e-6):
    """∂f/∂arr，f 不带参数、读的是 arr 本身：逐个元素原地 ±eps 再复原。"""
    g = np.zeros_like(arr)
    for i in np.ndindex(arr.shape):
        old = arr[i]
        arr[i] = old + eps
        fp = f()
        arr[i] = old - eps
        fm = f()
        arr[i] = old
        g[i] = (fp - fm) / (2 * eps)
    return g
