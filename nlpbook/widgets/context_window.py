"""上下文窗口滑块（第 14 章“上下文窗口：一次能看多长”一节）：窗口只装得下最近的 n 个 token，更早的内容被挤出去。

演示数据是这一节的小故事（小明的猫叫年糕），后面接一段确定的日常闲聊，整段按字计数共 650 个 token。
窗口保留最后 n 个 token；猫的名字在最开头，只有窗口装得下它时才答得出。回答是预设的，不来自任何模型。
计数方式：每个字符（汉字、标点）算一个 token——只是为了演示好数，真实分词器的切法不同（第 2 章）。
"""
from __future__ import annotations

import html

import traitlets

from ._client import ClientPanel

__all__ = ["STORY", "FILLER", "QUESTION", "NAME", "UNANSWERABLE", "MIN_WINDOW", "context_text",
           "window_view", "context_window_html", "ContextWindowPanel"]

STORY = "小明养了一只猫，名字叫年糕。它每天早上六点叫小明起床，吃完饭就趴在窗台上晒太阳。周末小明带它去公园，它一直躲在包里。"
# 之后几天的流水账：不提猫的名字（只提到“猫”），把对话拉长到 650 个字符。
FILLER = (
    "那个周末过后，小明的日子又照常往前走着。星期一早上下起小雨，他撑着伞去公司，路上买了一杯豆浆和两个包子。"
    "上午开了一个很长的会，讨论下个月的新项目，大家意见不一，一直争到中午。"
    "午饭时同事小红说楼下新开了一家面馆，牛肉面分量很足，几个人约好第二天一起去尝尝。"
    "下午小明整理了一大堆报表，眼睛看得发酸，就站起来走到窗边活动了一下肩膀。"
    "下班回家，他先给阳台上的花浇了水，又把洗好的衣服叠好放进柜子。晚饭做了番茄炒蛋和紫菜汤，味道还算不错。"
    "吃完饭他给妈妈打了个电话，妈妈问他最近睡得好不好，叮嘱他天冷了要多穿衣服，"
    "还说老家院子里的橘子树结了很多果子，过几天寄一箱过来。"
    "星期三公司停电，大家只好提前下班。小明顺路去书店逛了一圈，买了一本讲天文的小书和一本菜谱。"
    "书店老板养着一只大黄狗，趴在门口的垫子上打盹，见有人进来只抬了抬眼皮。"
    "星期五晚上，老同学阿杰来家里做客。两个人一边吃火锅一边聊天，从大学宿舍的趣事一直聊到各自的工作。"
    "阿杰说他最近在学游泳，已经能游二十五米了；小明说自己打算报一个周末的绘画班，画画窗外的风景。"
    "猫从沙发底下探出头，看了看陌生人，又缩了回去，直到阿杰走了才出来吃东西。"
    "星期六天气放晴，小明把被子抱到阳台上晒，又把屋子打扫了一遍，擦了窗户，拖了地，还把书架重新整理了一下。"
    "傍晚他下楼散步，看到小区里的孩子们在踢球，老人们坐在树下下象棋，空气里飘着桂花的香味。"
)
QUESTION = "问：小明的猫叫什么？"
NAME = "年糕"
UNANSWERABLE = "（窗口里已经没有猫的名字，只能猜）"
MIN_WINDOW = 50


def context_text() -> str:
    """整段对话：故事 + 闲聊 + 问题，共 650 个字符（= 650 个 token，按字计数）。"""
    return STORY + FILLER + QUESTION


def window_view(n: int, text: str | None = None, name: str = NAME) -> dict:
    """窗口装 n 个 token（按字计数）时：哪些在窗口外、哪些在窗口里，答不答得出。

    窗口保留最后 n 个字符（最新的内容）。返回 {'total', 'n', 'outside', 'inside', 'answerable', 'answer'}；
    n 大于全文长度时整段都在窗口里。answerable 当且仅当 name 完整地落在窗口里。
    例：window_view(650)['answer'] → '年糕'；window_view(600)['answer'] → '（窗口里已经没有猫的名字，只能猜）'
    """
    text = context_text() if text is None else text
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n 必须是正整数（窗口能装的 token 数），收到 {n!r}")
    cut = max(len(text) - n, 0)
    outside, inside = text[:cut], text[cut:]
    answerable = name in inside
    return {"total": len(text), "n": n, "outside": outside, "inside": inside, "answerable": answerable,
            "answer": name if answerable else UNANSWERABLE}


def _mark(segment: str, name: str, style: str) -> str:
    """转义一段文字，把其中完整出现的 name 加上醒目的样式。"""
    parts = segment.split(name)
    return f"<b style='{style}'>{html.escape(name)}</b>".join(html.escape(p) for p in parts)


def context_window_html(n: int, text: str | None = None, name: str = NAME) -> str:
    """窗口外的字灰色加删除线，窗口里的字浅蓝底；猫的名字加粗标出；最后给出预设回答。"""
    v = window_view(n, text, name)
    out_html = _mark(v["outside"], name, "color:#767676")
    in_html = _mark(v["inside"], name, "background:#EEEEBB")
    shown = min(n, v["total"])
    head = (f"<div>窗口 <b>{n}</b> 个 token（按字计数）：整段对话共 {v['total']} 个，窗口里装下最近的 "
            f"<b>{shown}</b> 个，更早的 <b>{len(v['outside'])}</b> 个被挤出窗口（灰色、划掉），模型完全看不到。</div>")
    body = (f"<div style='line-height:1.8;margin:6px 0;font-size:14px'>"
            f"<span style='color:#767676;text-decoration:line-through'>{out_html}</span>"
            f"<span style='background:#CCEEFF'>{in_html}</span></div>")
    color = "#228833" if v["answerable"] else "#AA3377"
    answer = (f"<div>回答（预设）：<b style='color:{color}'>{html.escape(v['answer'])}</b>"
              f"{'——名字还在窗口里' if v['answerable'] else ''}</div>")
    return head + body + answer


class ContextWindowPanel(ClientPanel):
    """窗口大小滑块（50—650 个 token，步长 10）；在浏览器里重画（js/context_window.js）。"""

    module = "context_window"
    controls = ("n",)
    n = traitlets.Int(650).tag(sync=True)

    def __init__(self, n: int = 650, step: int = 10):
        total = len(context_text())
        if isinstance(n, bool) or not isinstance(n, int) or not MIN_WINDOW <= n <= total:
            raise ValueError(f"n 取 {MIN_WINDOW}—{total} 的整数，收到 {n!r}")
        data = {"text": context_text(), "name": NAME, "unanswerable": UNANSWERABLE, "min": MIN_WINDOW, "step": step}
        super().__init__(n=n, data=data)

    def fallback_html(self) -> str:
        return context_window_html(int(self.n))
