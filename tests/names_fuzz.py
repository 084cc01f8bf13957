"""Index names that exercise exact-name handling on a real engine: unicode (2-, 3- and 4-byte
UTF-8), percent signs that look like escapes, dots, ``+``, and names of exactly 255 bytes;
all legal index names (the illegal ones are refused before any request: unit tests)."""

from __future__ import annotations

import random

ALPHABET = list("abcz09-_+.%é中ßσ😀ü")
FIXED = ["qidf-it-%23x", "qidf-it-%2fx", "qidf-it-%2e%2e", "qidf-it-a..b", "qidf-it-x+y",
         "qidf-it-" + "é" * 123, "qidf-it-" + "x" * 247, "qidf-it-percent%",
         "qidf-it-😀", "qidf-it-" + "😀" * 61 + "ab"]
# The look-alike indices the fuzz tests create beside the names: never a fuzzed name itself
# (seed 5 drew "qidf-it-a" as its 35th name, and the test recreated and swapped its decoy).
DECOYS = ("qidf-it", "qidf-it-x", "qidf-it-a", "qidf-it-percent")


def fuzz_names(n: int, seed: int = 5) -> list[str]:
    """``n`` distinct legal names starting with ``qidf-it-`` (the fixed ones first)."""
    rng = random.Random(seed)
    names = list(FIXED[:n])
    while len(names) < n:
        body = "".join(rng.choice(ALPHABET) for _ in range(rng.choice([1, 4, 12, 40, 80])))
        name = f"qidf-it-{body}"
        if len(name.encode()) <= 255 and name not in names and name not in DECOYS:
            names.append(name)
    return names


