"""Chinese tokens for BM25: jieba's search-mode cut, with the ventilation vocabulary added and a few
synonyms folded (a question says 局扇 or 综采, the regulation 局部通风机 and 综合机械化采煤).

One private :class:`jieba.Tokenizer` per process, built lazily (its dictionary loads in ~0.5 s; jieba's
start-up log is silenced). Thread-safe after the first call.
"""

from __future__ import annotations

import logging
import re
import threading

import jieba

# Terms of the ventilation chapter kept whole (jieba's search mode still adds their parts).
VOCABULARY = (
    "采煤工作面",
    "掘进工作面",
    "采掘工作面",
    "工作面",
    "煤巷",
    "半煤岩巷",
    "岩巷",
    "硐室",
    "机电设备硐室",
    "爆炸物品库",
    "充电硐室",
    "局部通风机",
    "主要通风机",
    "备用通风机",
    "风筒",
    "风门",
    "风桥",
    "风墙",
    "风窗",
    "风硐",
    "风井",
    "回风巷",
    "进风巷",
    "总回风巷",
    "总进风巷",
    "采区回风巷",
    "采区进风巷",
    "联络巷",
    "输送机巷",
    "架线电机车",
    "箕斗",
    "带式输送机",
    "井筒",
    "梯子间",
    "甲烷",
    "瓦斯",
    "二氧化碳",
    "一氧化碳",
    "氢气",
    "风速",
    "风量",
    "需风量",
    "供风量",
    "风流",
    "全风压",
    "串联通风",
    "下行通风",
    "独立通风",
    "扩散通风",
    "分区通风",
    "反风",
    "反风演习",
    "风电闭锁",
    "甲烷电闭锁",
    "三专",
    "测风",
    "通风阻力",
    "漏风率",
    "采空区",
    "停风区",
    "排放瓦斯",
    "综合机械化",
    "允许风速",
    "最高允许风速",
    "最低允许风速",
    "最高允许浓度",
    "有害气体",
    "贯通",
    "通风系统图",
    "铅酸蓄电池",
    "锂电池",
    "柴油动力",
    "兼作",
    "进风",
    "回风",
    "进风井",
    "回风井",
    "进风流",
    "回风流",
    "升降",
)

# question word → the regulation's word (both kept as tokens)
SYNONYMS = {
    "局扇": "局部通风机",
    "局部风机": "局部通风机",
    "主扇": "主要通风机",
    "主通风机": "主要通风机",
    "综采": "综合机械化",
    "综掘": "综合机械化",
    "瓦斯": "甲烷",
    "ch4": "甲烷",
    "co2": "二氧化碳",
    "co": "一氧化碳",
    "h2": "氢气",
    "风速度": "风速",
    "配风": "风量",
    "胶带": "带式输送机",
    "皮带": "带式输送机",
    "炸药库": "爆炸物品库",
    "火药库": "爆炸物品库",
    "爆炸材料库": "爆炸物品库",
    "变电所": "机电设备硐室",
    "掘进面": "掘进工作面",
    "采煤面": "采煤工作面",
    "回采工作面": "采煤工作面",
    "气温": "温度",
}

_STOPWORDS = (
    "的 了 是 在 和 与 及 或 或者 等 中 为 对 于 时 其 之 以 也 都 而 并 就 被 把 将 从 这 那 该 本 "
    "多少 什么 怎么 怎样 如何 哪些 哪个 吗 呢 啊 吧 请问 请 有 没有 要求 规定 按照 应当 必须 可以 "
    "下列 下同 要 能 上 下 个 条 一 第"
)
STOPWORDS = frozenset(_STOPWORDS.split())
# Words whose parts name something else: not split into 2-/3-grams.
NO_SPLIT = frozenset({"半煤岩巷"})
_KEEP = re.compile(r"[\w\u4e00-\u9fff]")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")
_lock = threading.Lock()
_tokenizer: jieba.Tokenizer | None = None


def _get() -> jieba.Tokenizer:
    global _tokenizer
    if _tokenizer is None:
        with _lock:
            if _tokenizer is None:
                jieba.setLogLevel(logging.WARNING)
                tk = jieba.Tokenizer()
                tk.initialize()
                for word in (*VOCABULARY, *SYNONYMS, *SYNONYMS.values()):
                    tk.add_word(word, freq=20000)
                _tokenizer = tk
    return _tokenizer


def normalise(text: str) -> str:
    """Full-width digits, letters and ％ to ASCII, lower case; Chinese unchanged."""
    out = []
    for ch in text:
        code = ord(ch)
        if 0xFF01 <= code <= 0xFF5E:
            ch = chr(code - 0xFEE0)
        out.append(ch)
    return "".join(out).lower()


def _words(text: str) -> list[str]:
    """jieba's precise cut without HMM new-word guessing (``进风时`` stays ``进风`` + ``时``), each longer
    word followed by its dictionary 2- and 3-grams as jieba's search mode does, except for the words
    whose parts mean something else (``半煤岩巷`` is not a ``岩巷``)."""
    tk = _get()
    out: list[str] = []
    for i, part in enumerate(_NUMBER.split(text)):
        if i % 2:  # a number, kept whole: 0.25, 1.5
            out.append(part)
        elif part:
            out += _cut(tk, part)
    return out


def _cut(tk: jieba.Tokenizer, text: str) -> list[str]:
    out: list[str] = []
    for word in tk.cut(text, HMM=False):
        if len(word) > 2 and word not in NO_SPLIT and _CJK.fullmatch(word):
            for n in (2, 3) if len(word) > 3 else (2,):
                out += [word[i : i + n] for i in range(len(word) - n + 1) if tk.FREQ.get(word[i : i + n])]
        out.append(word)
    return out


def tokens(text: str) -> list[str]:
    """BM25 tokens of ``text``: words and their parts (:func:`_words`), punctuation and stop words
    dropped, each synonym followed by the regulation's word. Deterministic."""
    out: list[str] = []
    for tok in _words(normalise(text)):
        tok = tok.strip()
        if not tok or tok in STOPWORDS or not _KEEP.search(tok):
            continue
        out.append(tok)
        if tok in SYNONYMS:
            out.append(SYNONYMS[tok])
    return out


def warm_up() -> None:
    """Load jieba's dictionary now (otherwise on the first :func:`tokens` call)."""
    _get()
