"""交互面板的操作表（PANELS）和在浏览器里操作一个面板控件的共用代码：
JupyterLab 里（test_browser.py，要内核）和阅读网站上（test_site.py，没有内核）用同一张表、同一套操作。

在浏览器里运行的面板（nlpbook.widgets._client.ClientPanel）的控件都是带 <label> 的原生控件：按标签文字找
（滑块 input[type=range]、文字框、下拉框、勾选框；一组按钮是 role=group、aria-label=标签），视图在 .np-view 里。
"""
from __future__ import annotations

import re
from typing import NamedTuple


class Step(NamedTuple):
    """在 cell（源代码里含这段文字的单元格）的面板上操作一个控件，然后面板的输出必须改变。

    kind: slider（value = 按键和次数，如 "ArrowRight*2"）、text（填入 value）、
    dropdown（选中标签为 value 的项）、checkbox（value = 勾上 True / 取消 False）、toggle（点名为 value 的按钮）、
    button（点文字为 label 的按钮，value 不用）。
    label 是控件的说明文字（完全一致）；expect 是操作后输出里应出现的文字（None = 只要求输出变了）。
    kernel=True：要内核回答、网站上没有这个控件的操作（第 11 章自己写的提示词）；网站的测试跳过它。
    """
    cell: str
    kind: str
    label: str
    value: object
    expect: str | None = None
    kernel: bool = False


# notebook → 依次执行的操作。每个交互面板（以 `xxx.widget` 结尾的单元格）至少一行，
# test_every_panel_is_driven 会检查这一点。
PANELS: dict[str, list[Step]] = {
    "01-task.ipynb": [
        Step("scorer.widget", "text", "评论：", "电影难看", "判为 差评"),
        Step("scorer.widget", "text", "评论：", "剧情精彩", "判为 好评"),
        Step("scorer.widget", "text", "评论：", "好看好看，就是有点无聊", "总分 1 → 判为 好评"),
    ],
    "02-tokens.ipynb": [
        Step("playground.widget", "text", "句子：", "我喜欢看电影", "6 个字符 → 4 个 token"),
        Step("playground.widget", "text", "句子：", "龘👍ok", "4 个字符 → 9 个 token（其中 7 个是字节回退片段）"),
    ],
    "04-learning.ipynb": [
        Step("panel = LearningRatePanel(", "slider", "学习率", "ArrowRight*5", "学习率 0.63"),
        Step("panel = LearningRatePanel(", "slider", "步数", "ArrowLeft*10", "→ 20 步后"),
    ],
    "05-ngrams.ipynb": [
        Step("panel = NGramWindowPanel(", "slider", "窗口 n", "ArrowRight", "n = 3"),
    ],
    "06-word-vectors.ipynb": [
        Step("panel = EmbeddingMap(", "dropdown", "选一个词", "巴黎", "离 巴黎 最近的 3 个词"),
        Step("panel = EmbeddingMap(", "slider", "邻居数", "ArrowRight", "离 巴黎 最近的 4 个词"),
        Step("panel = EmbeddingMap(", "checkbox", "向量算术", False),
    ],
    "07-word2vec.ipynb": [
        Step("panel = SkipGramWindow(", "slider", "窗口", "ArrowRight", "窗口 2：这句话共产生 10 个"),
        Step("panel = SkipGramWindow(", "text", "句子（空格分词）", "我 喜欢 看 电影 和 书", "窗口 2：这句话共产生 18 个"),
        Step("panel = SkipGramWindow(", "slider", "中心词位置", "ArrowRight", "以“电影”为中心"),
        Step("panel = SkipGramWindow(", "text", "句子（空格分词）", "我喜欢看电影", "6 个字连在一起"),
        # JupyterLab 里内核用 jieba 切；网站上查本章例句的切分表：两处都切成“我 喜欢 看 电影”
        Step("panel = SkipGramWindow(", "button", "用 jieba 分词", None, "窗口 2：这句话共产生 10 个"),
        Step("word_map = EmbeddingMap(", "slider", "邻居数", "ArrowRight", "离 美国 最近的 4 个词"),
        Step("word_map = EmbeddingMap(", "dropdown", "选一个词", "银行", "离 银行 最近的 4 个词"),
        Step("word_map = EmbeddingMap(", "dropdown", "− b", "日本", "人民币 − 日本 + 美国 ≈"),
    ],
    "08-rnn.ipynb": [
        Step("panel = DecayPanel(", "slider", "每步乘的系数", "ArrowRight", "系数 0.55 连乘 10 次"),
        Step("panel = DecayPanel(", "slider", "步数", "ArrowRight", "系数 0.55 连乘 11 次"),
    ],
    "09-lstm-gru.ipynb": [
        Step("panel = LSTMGatePanel(", "slider", "遗忘门 f", "ArrowRight", "0.95×0.8"),
    ],
    "10-textcnn.ipynb": [
        Step("panel = ConvWindowPanel(", "slider", "层数", "ArrowRight", "堆叠 2 层"),
        Step("panel = ConvWindowPanel(", "slider", "窗口宽度", "ArrowLeft", "宽度 2、堆叠 2 层"),
    ],
    "11-generation.ipynb": [
        # 面板在前一格搭好（那一格静态显示默认视图），这里的单元格只有 `panel.widget`，用注释里的字找它
        Step("三元模型的生成面板", "slider", "温度 T", "ArrowLeft*3", "温度 T=0.7"),
        Step("三元模型的生成面板", "slider", "top-k（0=关）", "ArrowRight*5", "top-k=5"),
        # JupyterLab 里等内核采样好种子 7、8、9；网站上写明没有内核、显示的是预先采好的哪一组
        Step("三元模型的生成面板", "text", "种子", "7", "种子 7、8、9"),
        Step("GRU 的生成面板", "dropdown", "提示词", "房间很", "“房间很”之后的下一个字"),
        Step("GRU 的生成面板", "slider", "top-p（1=关）", "ArrowLeft*2", "top-p=0.9"),
        # 自己写的提示词：内核算出下一个字的分布、采好续写（网站上没有这个框）
        Step("GRU 的生成面板", "text", "自己写提示词", "手机", "“手机”之后的下一个字", kernel=True),
    ],
    "13-transformer.ipynb": [
        Step("explorer = AttentionExplorer()", "checkbox", "只看前文（因果遮罩）", True, "还看不到后面的 3 个词"),
        Step("explorer = AttentionExplorer()", "toggle", "头", "指代头", "头：指代头"),
        Step("real_explorer = AttentionExplorer", "dropdown", "层", "第 1 层", "第 1 层"),
    ],
    "14-costs.ipynb": [
        Step("steps_panel = RNNvsTransformerPanel(", "slider", "层数", "ArrowRight", "每层 10 步 × 2 层"),
        Step("steps_panel = RNNvsTransformerPanel(", "slider", "第几步", "ArrowRight*3", "已走 4 / 20 步"),
        Step("kv_panel = KVCachePanel(", "toggle", "注意力", "MQA", "要缓存 1 个 KV head"),
        Step("kv_panel = KVCachePanel(", "dropdown", "每个数的字节", "4（float32）", "× 4 字节"),
        Step("window_panel = ContextWindowPanel(", "slider", "窗口（token）", "ArrowLeft", "窗口 640 个 token"),
    ],
    "17-sft-lora-rag.ipynb": [
        Step("panel = RagPanel(", "slider", "BM25 的权重", "ArrowRight*5", "权重 1.0"),
        Step("panel = RagPanel(", "dropdown", "dev 问题", "token 一定是一个完整的词吗？", "问题：token 一定是一个完整的词吗？"),
    ],
    "C-glossary.ipynb": [
        Step("box = GlossarySearch(", "text", "搜索：", "困惑度", "找到 1 条"),
        Step("box = GlossarySearch(", "text", "搜索：", "", "全部术语：151 条"),
    ],
}


CONTROL = {"slider": "input[type=range]", "text": "input[type=text], textarea", "dropdown": "select",
           "checkbox": "input[type=checkbox]"}


def client_control(panel, step: Step):
    """浏览器面板里标签为 step.label 的控件（找不到或不止一个时 expect 会报出来）。"""
    if step.kind == "button":
        return panel.get_by_role("button", name=step.label, exact=True)
    if step.kind == "toggle":
        return panel.get_by_role("group", name=step.label, exact=True)
    if step.kind == "checkbox":
        return panel.locator(".np-checkbox").filter(has_text=re.compile(rf"^\s*{re.escape(step.label)}\s*$")) \
            .locator(CONTROL["checkbox"])
    return panel.locator(".np-control").filter(
        has=panel.page.locator("label", has_text=re.compile(rf"^\s*{re.escape(step.label)}\s*$"))).locator(CONTROL[step.kind])


def drive_client(page, panel, step: Step, log=lambda msg: None, timeout: float = 10_000) -> None:
    """在浏览器面板上做 step 的操作；视图必须变，且（给了 expect 时）出现 expect 的文字。"""
    from playwright.sync_api import expect
    control = client_control(panel, step)
    expect(control, f"{step.cell}：找不到控件「{step.label}」").to_have_count(1)
    view = panel.locator(".np-view").first
    before = view.text_content()
    assert before.strip(), f"{step.cell}：面板视图是空的"
    control.scroll_into_view_if_needed()
    if step.kind == "slider":
        first = control.input_value()
        key, _, times = str(step.value).partition("*")
        for _ in range(int(times or 1)):
            control.focus()           # 键盘操作：读者用方向键也能拖
            page.keyboard.press(key)
        expect(control, f"滑块「{step.label}」没有动").not_to_have_value(first, timeout=timeout)
    elif step.kind == "text":
        control.fill(str(step.value))
        control.press("Enter")
    elif step.kind == "dropdown":
        control.select_option(label=str(step.value))
    elif step.kind == "checkbox":
        control.set_checked(bool(step.value))
    elif step.kind == "toggle":
        control.get_by_role("button", name=str(step.value), exact=True).click()
    elif step.kind == "button":
        expect(control, f"按钮「{step.label}」是灰的").to_be_enabled(timeout=timeout)
        control.click()
    expect(view, f"操作「{step.label}」后面板视图没有变").not_to_have_text(before, timeout=timeout)
    if step.expect:
        expect(view, f"操作「{step.label}」后面板视图里没有「{step.expect}」").to_contain_text(step.expect, timeout=timeout)
    log(f"面板 {step.cell}：{step.kind}「{step.label}」→ {step.value!r} 通过")
