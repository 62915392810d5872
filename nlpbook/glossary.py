"""术语表（附录 C）：课程用到的术语，每条给中文名、英文名、一句解释和讲它的那一章。

前 29 条是课文自带术语表里的术语（顺序同课文）；其后是课文没有收、但课程主线离不开的术语
（in_text=False，附录 C 的表格里标为“补充”），按章排列。解释是本课程自己的说法，不是课文原文。
search() 是纯函数：按子串查中文名、英文名和解释，不区分大小写，返回顺序固定。
不做的事：不做模糊匹配、拼音或同义词扩展；只用标准库（不需要 numpy）。
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = ["Term", "GLOSSARY", "CHAPTER_NOTEBOOKS", "chapter_label", "notebook_for", "search"]


@dataclass(frozen=True)
class Term:
    """一条术语：中文名、英文名、一句解释、讲它的章（"1"—"18"，附录为 "A"—"D"）、是否是课文自带术语表里的（附录 C 的表格里标出）。"""
    zh: str
    en: str
    definition: str
    chapter: str
    in_text: bool = True


# 每章对应的 notebook 文件（与 notebooks/ 下的文件名一致）
CHAPTER_NOTEBOOKS = {
    "1": "01-task.ipynb", "2": "02-tokens.ipynb", "3": "03-bow-tfidf.ipynb", "4": "04-learning.ipynb",
    "5": "05-ngrams.ipynb", "6": "06-word-vectors.ipynb", "7": "07-word2vec.ipynb", "8": "08-rnn.ipynb",
    "9": "09-lstm-gru.ipynb", "10": "10-textcnn.ipynb", "11": "11-generation.ipynb",
    "12": "12-attention.ipynb", "13": "13-transformer.ipynb", "14": "14-costs.ipynb",
    "15": "15-pretraining.ipynb", "16": "16-ner.ipynb", "17": "17-sft-lora-rag.ipynb",
    "18": "18-experiments.ipynb", "A": "A-side-topics.ipynb", "B": "B-formulas.ipynb",
    "C": "C-glossary.ipynb", "D": "D-examples.ipynb",
}

_T = Term
_TEXT = (  # 课文自带术语表的 29 条，顺序同课文
    _T("语料", "corpus", "为学习或统计而收集的一批文本，例如本课程用的几万条商品评论、《人民日报》标注语料。", "5"),
    _T("词元", "token", "切分文本后得到的处理单位，可以是字、词、子词片段甚至一个字节；怎么切由分词器决定。"
       "课程里通常直接写 token。", "2"),
    _T("词表", "vocabulary", "token 与整数编号一一对应的表；词表外的 token 要另行处理，例如统一记作 <UNK>。", "2"),
    _T("token 编号", "token ID", "token 在词表里的位置号，只是查表用的地址：编号的大小和远近不代表意思，"
       "不能直接当作数值特征。", "2"),
    _T("向量", "vector", "一排个数固定的数字，例如一条评论的词袋计数、一个词的词向量。", "3"),
    _T("矩阵", "matrix", "若干个等长向量一行行叠成的数字表，例如 embedding 表：一行对应一个词。", "6"),
    _T("维度", "dimension", "一个向量里有几个数；也指多维数组在某个方向上的大小，即形状里的每一项。", "6"),
    _T("张量", "tensor", "任意维数的数值数组：向量是一维，矩阵是二维，(批, 长度, 特征) 这样的数组是三维。", "14"),
    _T("特征", "feature", "送进模型、用来做预测的数值信息，例如每个词在评论里出现了几次。", "3"),
    _T("参数", "parameter", "模型里由训练来调整的数，例如各个词的权重、偏置、整张词向量表。", "4"),
    _T("词嵌入（词向量）", "embedding", "给每个离散编号配一排可学习的数字；按编号到表里取出那一行，"
       "就是这个 token 的向量。", "6"),
    _T("隐藏状态", "hidden state", "网络读到某个位置时内部形成的一组数：在 RNN 里是一路往后传的“记录”，"
       "在 Transformer 里是每一层、每个位置的表示。", "8"),
    _T("上下文", "context", "做当前这一步预测时能参考的周围内容：Word2Vec 里是窗口内的邻居词，"
       "生成时是已经写出的前文。", "7"),
    _T("未归一化分数", "logits", "进入 softmax 之前的一组原始候选分数，可正可负，加起来也不必等于 1。", "7"),
    _T("损失", "loss", "衡量这次预测离训练目标有多远的一个数，越小越好；分类里常用 -ln(正确答案的概率)。", "4"),
    _T("梯度", "gradient", "损失对每个参数的变化率：参数往哪个方向动一点，损失上升得最快。训练时朝反方向走。", "4"),
    _T("反向传播", "backpropagation", "从损失出发，沿着计算链一步步往回应用链式法则，一次算出所有参数的梯度。", "4"),
    _T("批（小批量）", "batch", "一次一起送进模型计算的一组样本；用它们的平均梯度更新一次参数。", "4"),
    _T("补齐", "padding", "把长短不一的序列补成同一长度时填入的占位 token（如 <PAD>）；算平均、注意力和损失时"
       "都要把它们排除。", "18"),
    _T("遮罩", "mask", "标明哪些位置可以参与计算的一张表；被遮住的注意力分数设为负无穷，softmax 后权重恰好为 0。"
       "因果遮罩和 padding 遮罩是两种常见用法。", "13"),
    _T("注意力", "attention", "先给每个候选位置打一个相关性分数，用 softmax 变成权重，再按权重把这些位置的内容加起来。", "12"),
    _T("注意力头", "head", "一套独立的 Q/K/V 投影加一次注意力计算；多头注意力同时用几套，各自可以学不同的匹配方式。", "13"),
    _T("编码器", "encoder", "读入整个输入、为每个位置产生表示的那一部分网络。", "12"),
    _T("解码器", "decoder", "根据能看到的信息（编码器的表示、已经写出的内容）一个 token 一个 token 地产生输出的那一部分。", "12"),
    _T("预训练", "pretraining", "先在大量通用文本上用填空、续写等题目训练，得到可以复用的参数，再用到具体任务上。", "15"),
    _T("微调", "fine-tuning", "从已经训练好的参数出发，在新的数据或目标上继续训练。", "15"),
    _T("推理", "inference", "用训练好的模型计算输出（分类、生成），通常不更新参数；它的时间和显存与训练要分开算。", "14"),
    _T("解码", "decoding", "根据模型每一步给出的概率决定具体输出哪个 token：贪心、随机采样、top-k/top-p、束搜索等。", "11"),
    _T("取舍", "trade-off", "得到一种好处，就要付出一些成本或接受一些限制；每章末尾的“取舍”表就是在列这笔账。", "1"),
)

_EXTRA = (  # 课程主线的其他术语（课文的术语表未收），按章排列
    _T("准确率", "accuracy", "判对的样本占全部样本的比例；类别不平衡时“全判一类”也能得高分，要和多数类基线一起看。", "1", False),
    _T("多数类基线", "majority-class baseline", "什么都不学、永远猜训练集里样本更多的那一类；别的方法的分数都要先和它比。", "1",
       False),
    _T("规则打分器", "rule-based scorer", "人手写好每个词的分数（如好看、精彩 +1，难看、无聊 −1），加起来大于 0 就判好评；"
       "不用训练，但换个说法就失灵。", "1", False),
    _T("训练集", "training set", "用来学参数的那份数据；词表、IDF 这类从数据里算出的统计量也只能在它上面拟合。", "1", False),
    _T("分词", "tokenization", "把一句话切成 token 的过程；按字、按词、按子词切，各有长处和代价。", "2", False),
    _T("子词", "subword", "比词小、比字节大的片段，例如 playing → play + ing；常用片段成词，罕见词拆成片段。", "2", False),
    _T("字节对编码", "BPE (byte-pair encoding)", "从单个字节（或字符）出发，反复把训练文本里出现最多的相邻一对合并成新 token，"
       "直到词表达到设定大小。", "2", False),
    _T("未登录词", "out-of-vocabulary (OOV)", "词表里没有的词；整词切分时只能记作 <UNK>，子词或字节切分可以把它拆开表示。", "2", False),
    _T("词袋", "bag of words", "只数每个词出现几次、不管顺序的表示：“我喜欢你”和“你喜欢我”得到同一个向量。", "3", False),
    _T("TF-IDF", "term frequency–inverse document frequency", "词频乘以逆文档频率：在很多文档里都出现的词，"
       "权重被压低。", "3", False),
    _T("逆文档频率", "inverse document frequency (IDF)", "ln(文档总数 ÷ 含这个词的文档数)：篇篇都有的词得 0，"
       "只在少数文档里出现的词得分高。", "3", False),
    _T("sigmoid 函数", "sigmoid", "1/(1+e^(-z))，把任意实数分数压到 0 到 1 之间，当作“是好评”的概率。", "3", False),
    _T("逻辑回归", "logistic regression", "特征乘权重相加、再加偏置得到分数，经过 sigmoid 变成概率的线性分类器。", "3", False),
    _T("偏置", "bias", "与输入无关、加在分数上的那个数，表示看到具体词之前的基础倾向。", "3", False),
    _T("交叉熵", "cross-entropy", "分类的损失：-ln(模型给正确答案的概率)；越自信地答错，罚得越重。", "4", False),
    _T("学习率", "learning rate", "每次沿梯度反方向走多大一步；太小走得慢，太大会来回震荡甚至损失上升。", "4", False),
    _T("梯度下降", "gradient descent", "反复执行“新参数 = 旧参数 - 学习率 × 梯度”；每次只用一小批样本时叫随机（小批量）梯度下降 SGD。",
       "4", False),
    _T("验证集", "validation set (dev set)", "训练时不用、专门拿来比较设置和观察效果的留出数据；测试集则要留到最后。", "4",
       False),
    _T("N 元语法", "N-gram", "N 个相邻 token 组成的片段（bigram 是两个、trigram 是三个），也指据此统计的模型。", "5", False),
    _T("语言模型", "language model", "给一段文本、或给定前文时下一个 token 分配概率的模型。", "5", False),
    _T("平滑", "smoothing", "给训练中没见过的组合也留一点概率，例如每个计数都加一，免得“没见过”被当成“不可能”。", "5", False),
    _T("独热向量", "one-hot", "只有一个位置为 1、其余为 0 的向量；乘 embedding 表等于按编号取那一行。", "6", False),
    _T("余弦相似度", "cosine similarity", "两个向量的点积除以两者长度之积，只看方向、不看长短：方向相同为 1，互相垂直为 0。", "6",
       False),
    _T("平均词向量", "averaged word vectors", "把一句话里真实的词（不含补齐）的词向量相加、除以词数，得到整句一个固定长度的向量；"
       "词序在这一步丢掉了。", "6", False),
    _T("Word2Vec", "Word2Vec", "不用人工标注，靠“用周围词预测中间词”或反过来的填空题训练词向量的方法。", "7", False),
    _T("连续词袋模型", "CBOW (continuous bag of words)", "Word2Vec 的一种：把窗口里周围词的向量合起来，预测中间那个词。", "7",
       False),
    _T("跳字模型", "skip-gram", "Word2Vec 的另一种：用中间词分别预测它周围的每个词。", "7", False),
    _T("点积", "dot product", "两个等长向量对应位置相乘再相加；数越大，两者越“对得上”，词向量、注意力和检索都拿它打分。", "7",
       False),
    _T("softmax 函数", "softmax", "把一组分数取指数再除以总和，变成一组加起来等于 1 的概率；只与分数之间的差有关。", "7", False),
    _T("负采样", "negative sampling", "不对整个词表做 softmax，只区分一个真实词对和几个随机抽来的“噪声”词对，省下大部分计算。", "7",
       False),
    _T("循环神经网络", "RNN (recurrent neural network)", "每读一个 token，就用它和上一步的隐藏状态算出新的隐藏状态；"
       "每一步共用同一套参数。", "8", False),
    _T("梯度消失", "vanishing gradient", "梯度往回传时一路乘上小于 1 的数，传到较早的位置几乎为 0，早期的词就很难学到。", "8", False),
    _T("门", "gate", "一组 0 到 1 之间的数，逐格决定信息保留、写入或输出多少；由 sigmoid 算出，参数靠训练学。", "9", False),
    _T("长短期记忆网络", "LSTM (long short-term memory)", "在 RNN 上加一份记忆和遗忘门、输入门、输出门，"
       "让有用的信息保留得更久。", "9", False),
    _T("门控循环单元", "GRU (gated recurrent unit)", "LSTM 的简化版：用更新门和重置门控制记录，门更少、参数更少。", "9",
       False),
    _T("双向", "bidirectional", "一个 RNN 从左往右读、另一个从右往左读，把两边的隐藏状态拼起来；只适合已经拿到整句的场合。", "9",
       False),
    _T("卷积", "convolution", "同一组权重在序列上逐个窗口滑动，每个窗口算一个分数，用来捕捉“不 好看”这类局部短语；"
       "TextCNN 即用它分类。", "10", False),
    _T("池化", "pooling", "把一串位置上的向量汇成一个向量（取平均或取最大），长短不一的输入由此得到固定长度的表示。", "10", False),
    _T("最大池化", "max pooling (max-over-time)", "在一串窗口分数里只保留最大的那个：短语出现在句子哪里都一样被捕捉到。", "10",
       False),
    _T("TextCNN", "TextCNN (convolutional text classifier)", "词向量 → 几种宽度的卷积核在句子上滑动 → 最大池化 → 分类层的"
       "文本分类模型。", "10", False),
    _T("教师强制", "teacher forcing", "训练语言模型时每一步都喂给它真实的前文，而不是它自己刚生成的内容；生成时才用自己写的前文。", "11",
       False),
    _T("暴露偏差", "exposure bias", "训练时每一步看到的都是真实前文，生成时看到的却是自己写出的前文；早一步写偏，"
       "后面就在训练时没见过的前缀上接着写。", "11", False),
    _T("提示", "prompt", "交给模型、让它接着写下去的开头文字；指令、问题和检索到的资料都可以放进提示。", "11", False),
    _T("温度", "temperature", "softmax 之前把分数除以 T：T 小于 1 让分布更尖、偏向高分候选，T 大于 1 让分布更平。", "11", False),
    _T("top-k / top-p 采样", "top-k / top-p sampling", "只在概率最高的 k 个候选里、或累计概率刚达到 p 的那些候选里"
       "重新归一化后抽样。", "11", False),
    _T("束搜索", "beam search", "生成时同时保留若干条得分最高的候选前缀，逐步扩展，最后选总分最高的一条。", "11", False),
    _T("困惑度", "perplexity (PPL)", "exp(平均每个 token 的负对数概率)；越低说明模型给真实文本的概率越高。", "11", False),
    _T("序列到序列", "Seq2Seq (sequence-to-sequence)", "输入一个序列、输出另一个长度可以不同的序列，例如翻译；"
       "通常由编码器和解码器组成。", "12", False),
    _T("编码器—解码器", "encoder–decoder", "编码器先读完整个输入、给出表示，解码器再据此一个 token 一个 token 地写出输出；"
       "RNN 的 Seq2Seq 和 T5 都是这种结构。", "12", False),
    _T("软对齐", "soft alignment", "注意力学到的对应关系：每个输出词不是只对上某一个输入词，而是在全部输入位置上各分到一份权重。", "12",
       False),
    _T("交叉注意力", "cross-attention", "查询来自一组表示（如解码器），键和值来自另一组（如编码器）：写输出的一方按权重去读输入。", "13",
       False),
    _T("自注意力", "self-attention", "同一句话里的每个位置都按注意力权重去读同一句话的所有（允许的）位置。", "13", False),
    _T("上下文化表示", "contextual representation", "同一个 token 在不同句子里得到不同的向量：它按权重读进了周围的内容；"
       "自注意力、双向 LSTM 都能产生。", "13", False),
    _T("查询、键、值", "query, key, value (Q, K, V)", "注意力的三份投影：用 Q 和各位置的 K 做点积打分，"
       "再按权重组合各位置的 V。", "13", False),
    _T("因果遮罩", "causal mask", "只允许每个位置读自己和前面的位置，训练时不能偷看要预测的下一个 token。", "13", False),
    _T("位置编码", "positional encoding", "让本来不分先后的注意力知道词序的办法：给每个位置的输入加一个位置向量（正弦余弦或可学习的），"
       "或者像 RoPE 那样按位置旋转 Q 和 K。", "13", False),
    _T("旋转位置编码", "RoPE (rotary position embedding)", "不往输入上加向量，而是把 Q 和 K 的每两维看成平面上的点、"
       "按所在位置转一个角度；两者的点积因此只取决于相对位置。", "13", False),
    _T("多头注意力", "multi-head attention", "把特征分成几份，各用一套 Q/K/V 并行做注意力，再拼起来乘一个输出矩阵。", "13", False),
    _T("残差连接", "residual connection", "把子层的输入直接加到它的输出上（X + 子层(X)），信息和梯度都多了一条直通的路。", "13", False),
    _T("层归一化", "layer normalization (LayerNorm)", "对每个 token 自己的特征减均值、除以标准差，再乘、加两组可学习的数。", "13",
       False),
    _T("Pre-LN 与 Post-LN", "pre-LN / post-LN", "LayerNorm 放在哪里：Pre-LN 先归一化、再进子层、再加残差（本课程的默认，训练更稳）；"
       "Post-LN 是原始 Transformer 的做法，加完残差再归一化。", "13", False),
    _T("前馈网络", "feed-forward network (FFN)", "Transformer 层里逐位置使用的小网络：线性变换、非线性、再一个线性变换，"
       "各位置共用参数。", "13", False),
    _T("KV 缓存", "KV cache", "逐个 token 生成时，把前面位置已经算好的 K、V 存下来复用，用显存换计算。", "14", False),
    _T("分组查询注意力", "GQA / MQA (grouped-query / multi-query attention)", "几个 Query head 共用一组 K、V"
       "（MQA 是全部共用一组），要缓存的 K、V 随之变少。", "14", False),
    _T("浮点运算次数", "FLOPs (floating-point operations)", "数一段计算要做多少次乘法和加法（一次乘加记 2 次），"
       "用来看规模怎样随长度和维度增长，不等于实际耗时。", "14", False),
    _T("量化", "quantization", "用更少的位数存储权重等数值（如 8 位、4 位），省存储；速度是否更快要另外测。", "14", False),
    _T("上下文窗口", "context window", "模型一次计算能放进来的 token 数上限；超出的部分不参与计算，就像从来没出现过。", "14", False),
    _T("迁移学习", "transfer learning", "把在一个任务或数据上学到的参数拿到另一个任务上接着用；预训练加微调是其中一种。", "15", False),
    _T("掩码语言建模", "masked language modeling (MLM)", "把输入里的一部分 token 遮住，让模型看两侧的内容把它们补回来；"
       "BERT 用的预训练题目。", "15", False),
    _T("因果语言模型", "causal language model", "只看前文、预测下一个 token 的语言模型；GPT 类模型用的预训练题目，生成也靠它。", "15",
       False),
    _T("片段破坏", "span corruption", "T5 的预训练题目：把输入里的几段连续 token 各换成一个哨兵，让解码器写出被拿走的内容。", "15",
       False),
    _T("哨兵", "sentinel token", "片段破坏里顶替一整段 token 的占位符（<extra_id_0>、<extra_id_1>……）；目标里用同一个哨兵"
       "引出被拿走的那段。", "15", False),
    _T("前缀语言模型", "prefix language model (prefix LM)", "前缀里的位置互相都能看见，之后的位置只看前缀和自己前面的内容；"
       "相当于把编码器和解码器合在一套参数里。", "15", False),
    _T("分类头", "classification head", "接在预训练主体后面的小输出层，例如对池化后的向量做一次两类逻辑回归。", "15", False),
    _T("冻结", "freezing", "训练时让一部分参数保持原样、不更新：线性探针冻结整个主体，LoRA 冻结原权重。", "15", False),
    _T("线性探针", "linear probe", "冻结预训练主体，只在它给出的特征上训练一个线性分类头，看这些特征本身带了多少任务需要的信息。", "15",
       False),
    _T("全部微调", "full fine-tuning", "预训练主体和分类头的全部参数都参与训练；比线性探针和 LoRA 改得多，也更贵。", "15", False),
    _T("命名实体识别", "named entity recognition (NER)", "在句子里找出人名、地名、机构名等专名，给出类型和起止位置。", "16", False),
    _T("BIO 标注", "BIO tagging (IOB2)", "每个 token 标 B-类型（实体开头）、I-类型（实体内部）或 O（不属于实体），"
       "把找实体变成逐位置分类。", "16", False),
    _T("条件随机场（线性链 CRF）", "CRF (conditional random field)", "给整条标签序列打分：每个位置的分数加相邻标签的转移分数，"
       "再对所有可能的序列归一化成概率。", "16", False),
    _T("维特比算法", "Viterbi algorithm", "用动态规划找分数最高的标签序列，不必一条条枚举所有路径。", "16", False),
    _T("前向算法", "forward algorithm", "和维特比算法一样从左往右走，只是把“取最大”换成 log-sum-exp，"
       "算出全部路径的归一化项 log Z。", "16", False),
    _T("硬约束", "hard constraints", "把不合法的标签转移（如 O → I-ORG）的分数直接设成负无穷，这样的路径概率恰好为 0；"
       "只靠学到的转移分数，不合法的路径仍会分到一点概率。", "16", False),
    _T("精确率", "precision", "找出来的结果里有多少是对的：正确数 ÷ 预测数。", "16", False),
    _T("召回率", "recall", "该找的里面找到了多少：正确数 ÷ 标注数。", "16", False),
    _T("F1 值", "F1 score", "精确率和召回率的调和平均 2PR/(P+R)，两者都高它才高。", "16", False),
    _T("实体级评价", "entity-level evaluation", "类型、起点、终点都对才算抽对一个实体，再按实体数算精确率、召回率和 F1；"
       "只认对一半的实体不给分。", "16", False),
    _T("微平均", "micro-average", "先把所有句子（或类别）的正确数、预测数、标注数加起来，再算一次指标。", "16", False),
    _T("监督微调", "SFT (supervised fine-tuning)", "用“指令—合适回答”的示例继续训练，损失仍是下一词交叉熵；"
       "很多实现只对回答部分的 token 计损失，提示只作输入。", "17", False),
    _T("偏好数据（偏好对）", "preference data (preference pairs)", "(问题, 更好的回答, 更差的回答) 这样的三元组，"
       "由人或一位评委标出两条回答哪条更好。", "17", False),
    _T("奖励模型", "reward model", "给一条回答打分的模型，分数表示它有多合乎偏好；RLHF 让生成模型去追求这个分数。", "17", False),
    _T("参考模型", "reference model", "偏好训练出发时的那份模型（通常是 SFT 之后的），训练中冻结，用来衡量策略离出发点有多远。", "17",
       False),
    _T("基于人类反馈的强化学习", "RLHF (reinforcement learning from human feedback)", "先用偏好数据训练奖励模型，"
       "再用强化学习让生成模型追求高奖励，同时用 KL 惩罚拉住它别离参考模型太远。", "17", False),
    _T("直接偏好优化", "DPO (direct preference optimization)", "不单独训练奖励模型、也不用强化学习，直接用偏好对构造损失："
       "好回答相对参考模型提高得比差回答多，损失就小。", "17", False),
    _T("KL 散度", "KL divergence", "Σ p(y)·ln(p(y)/q(y))：分布 p 和 q 差多远；总是不小于 0，只有两者相同时为 0，"
       "而且 KL(p‖q) 一般不等于 KL(q‖p)。", "17", False),
    _T("采样估计", "Monte Carlo estimate", "没法把所有结果逐一加起来时，从分布里抽一批样本、对要算的量取平均来近似期望；"
       "KL(π‖π_ref) 就这样估计。", "17", False),
    _T("奈特", "nat", "用自然对数算信息量或 KL 时的单位；换成以 2 为底的对数，单位就是比特。", "17", False),
    _T("隐式奖励", "implicit reward", "β·ln(π(y)/π_ref(y))：DPO 把策略比参考模型多给这条回答的对数概率，看作它心目中的奖励。", "17",
       False),
    _T("胜率", "win rate", "同一个提示下两个模型的回答各打一个分，前者得分更高的比例（平局算一半）。", "17", False),
    _T("奖励投机", "reward hacking", "模型钻了打分者的空子：训练用的评委给的分涨了，换一位评委或请人来看却没有变好。", "17", False),
    _T("低秩适配", "LoRA (low-rank adaptation)", "冻结原权重 W0，只训练两个小矩阵相乘得到的改动：W = W0 + (α/r)·BA，"
       "用很少的参数完成微调。", "17", False),
    _T("检索增强生成", "RAG (retrieval-augmented generation)", "先从资料库里检索出相关段落，放进提示里，再让模型据此生成回答。", "17",
       False),
    _T("检索", "retrieval", "按问题从资料库里找出最相关的几段文字：可以数共同的词（TF-IDF、BM25），也可以比向量（稠密检索）。", "17",
       False),
    _T("BM25", "BM25 (Okapi BM25)", "关键词检索的打分：问题里每个词按 IDF 加权、再按词频计分，词频越多加得越少（饱和），"
       "长段落按长度折算。", "17", False),
    _T("稠密检索", "dense retrieval", "把问题和段落都变成短的稠密向量，再按余弦相似度排序；没有共同的词也可能得分。", "17", False),
    _T("潜在语义分析", "latent semantic analysis (LSA)", "对 TF-IDF 矩阵做截断 SVD、只留最大的几个奇异值，"
       "把段落和问题压成同一个低维空间里的稠密向量。", "17", False),
    _T("混合检索", "hybrid retrieval", "两种检索的分数各自缩放到 [0, 1] 再加权相加（本课程是 BM25 加 LSA）。", "17", False),
    _T("前 k 名召回率", "recall@k", "每个问题只有一个正确段落时，它排进前 k 名的问题所占的比例。", "17", False),
    _T("平均倒数排名", "MRR (mean reciprocal rank)", "每个问题记 1/正确段落的名次（第 1 名 1 分、第 2 名 0.5 分），"
       "再对全部问题求平均。", "17", False),
    _T("正确段落", "gold passage", "检索评测里给每个问题标好的、应该被找到的那一段；recall@k 和 MRR 都看它排在第几名。", "17",
       False),
    _T("抽取式回答", "extractive answering", "不让模型自己写，而是从找到的段落里挑出最相关的句子原样照抄，并注明出处。", "17", False),
    _T("测试集", "test set", "整个选择过程都不碰、只在最后报告一次结果的留出数据。", "18", False),
    _T("基线", "baseline", "先做的一个简单方法（多数类、规则、词袋），后面的改进都要和它比。", "18", False),
    _T("过拟合", "overfitting", "在训练集上很好、在没见过的数据上明显变差：模型记住了训练数据的细节而不是规律。", "18", False),
    _T("混淆矩阵", "confusion matrix", "行是真实类别、列是预测类别的计数表：对角线是判对的，其余格子说明错成了哪一类。", "18", False),
    _T("宏 F1", "macro-F1", "每个类别各算一个 F1 再简单平均：每类同等重要，“全判一类”的模型会被它揭穿。", "18", False),
    _T("自助法", "bootstrap", "从评测集里有放回地重抽同样多的样本、重算指标，重复上千次，取分位数作区间："
       "它反映换一份同样大小的数据时指标会晃多少。", "18", False),
    _T("配对比较", "paired comparison", "两种方法在同一批样本（或同样的种子）上打分时，逐条取差再估计波动：共有的难易互相抵消，"
       "区间更窄。", "18", False),
    _T("朴素贝叶斯", "naive Bayes", "用贝叶斯公式算类别的后验概率，并假设给定类别后各个词相互独立，好估计但不符合语言实际。", "A",
       False),
    _T("GloVe", "GloVe (global vectors)", "先统计整个语料里词与词的共现次数，再学习能拟合这些统计量（取对数后）的词向量。", "A", False),
    _T("fastText", "fastText", "把一个词的向量表示成它的字符 n-gram 向量之和，词形相近的词共享参数，没见过的词也能拼出向量。", "A",
       False),
    _T("隐马尔可夫模型", "HMM (hidden Markov model)", "用“标签之间的转移概率”和“标签产生词的概率”描述一个序列的生成式模型。", "A",
       False),
)

GLOSSARY: tuple[Term, ...] = _TEXT + _EXTRA


def _chapter_key(chapter) -> str:
    if isinstance(chapter, bool) or not isinstance(chapter, (int, str)):
        raise TypeError(f"chapter 必须是章号（整数 1—18，或 '1'—'18'、'A'—'D'），收到 {type(chapter).__name__}")
    key = str(chapter).strip().upper()
    if key not in CHAPTER_NOTEBOOKS:
        raise ValueError(f"没有这一章：{chapter!r}；可用的是 1—18 和 A—D")
    return key


def chapter_label(chapter) -> str:
    """章号的中文写法。例：chapter_label(13) → '第 13 章'，chapter_label('A') → '附录 A'。教学位置：附录 C。"""
    key = _chapter_key(chapter)
    return f"附录 {key}" if key.isalpha() else f"第 {key} 章"


def notebook_for(chapter) -> str:
    """讲这一章的 notebook 文件名。例：notebook_for(16) → '16-ner.ipynb'。教学位置：附录 C。"""
    return CHAPTER_NOTEBOOKS[_chapter_key(chapter)]


def _norm(s: str) -> str:
    """比较用的形式：全角转半角（NFKC）、不区分大小写、去掉首尾空白。"""
    return unicodedata.normalize("NFKC", s).casefold().strip()


def search(query: str = "", chapter=None) -> list[Term]:
    """按子串查术语：中文名、英文名或解释里含有 query（不区分大小写、全角半角）就算命中。

    教学位置：附录 C。返回顺序固定：先是名字（中文或英文）命中的，再是只有解释命中的，
    两组内部都按术语表原顺序（课文自带的 29 条在前）。query 为空字符串时返回全部。
    chapter（可选）只保留在该章讲的术语。
    例：[t.zh for t in search('self-attention')] → ['自注意力']
    """
    if not isinstance(query, str):
        raise TypeError(f"query 必须是字符串，收到 {type(query).__name__}：{query!r}")
    key = None if chapter is None else _chapter_key(chapter)
    pool = [t for t in GLOSSARY if key is None or t.chapter == key]
    q = _norm(query)
    if not q:
        return pool
    by_name = [t for t in pool if q in _norm(t.zh) or q in _norm(t.en)]
    named = set(by_name)
    by_text = [t for t in pool if t not in named and q in _norm(t.definition)]
    return by_name + by_text
