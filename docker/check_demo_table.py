"""Check the table the compose demo printed against the local demo's table in README.md.

    python3 docker/check_demo_table.py README.md demo-output.txt

The README's table is what ``./scripts/demo.sh`` prints on the embedded engine; the container
demo runs the same code on the same data, so every number must agree within 1e-4 (both are
printed to 4 decimals), the same rows must be there (matched by q), and every q-log row must
beat BM25 on NDCG@10. Prints both tables side by side; exits 1 on any difference. Standard
library only: it runs on the CI host, outside the images.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

Row = tuple[float, float, float]  # NDCG@10, MRR@10, Recall@100
TOLERANCE = 1e-4
BM25 = "BM25"
NUMBER = r"(\d\.\d{4})"


def _key(label: str) -> str:
    """'BM25 (built-in)' -> 'BM25'; 'q-log q = 0.6 (qidf predict)' and 'q-log q=0.6' -> 'q=0.6'."""
    if label.strip().startswith("BM25"):
        return BM25
    match = re.search(r"q\s*=\s*([0-9.]+)", label)
    if not match:
        raise ValueError(f"unrecognised row label {label!r}")
    return f"q={float(match.group(1)):g}"


def _rows(lines: list[str], separator: str) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for line in lines:
        if separator not in line:
            continue
        cells = [c.strip() for c in line.split(separator)]
        label = next((i for i, c in enumerate(cells) if re.match(r"(BM25|q-log)", c)), None)
        if label is None:
            continue
        numbers = [re.match(NUMBER, c) for c in cells[label + 1:label + 4]]
        if len(numbers) < 3 or not all(numbers):
            continue
        ndcg, mrr, recall = (float(m.group(1)) for m in numbers if m)
        rows[_key(cells[label])] = (ndcg, mrr, recall)
    return rows


def readme_rows(text: str) -> dict[str, Row]:
    """The demo's Markdown table: the one in the README's "Try it" section (other sections
    have tables with BM25 rows too)."""
    section = text.split("## Try it", 1)[-1].split("\n## ", 1)[0]
    return _rows(section.splitlines(), "|")


def demo_rows(text: str) -> dict[str, Row]:
    """The rows of the rich table the demo printed (cells separated by '│'), compose's
    'demo_1  | ' prefixes included."""
    return _rows(text.splitlines(), "│")


def compare(expected: dict[str, Row], got: dict[str, Row]) -> list[str]:
    problems = []
    if BM25 not in got:
        return ["the demo printed no BM25 row"]
    if set(expected) != set(got):
        problems.append(f"rows differ: README {sorted(expected)}, demo {sorted(got)}")
    for key in sorted(set(expected) & set(got)):
        for name, e, g in zip(("NDCG@10", "MRR@10", "Recall@100"), expected[key], got[key],
                                 strict=True):
            if abs(e - g) > TOLERANCE + 1e-9:
                problems.append(f"{key} {name}: README {e:.4f}, demo {g:.4f}")
    bm25 = got[BM25][0]
    for key, row in got.items():
        if key != BM25 and not row[0] > bm25:
            problems.append(f"{key} NDCG@10 {row[0]:.4f} is not above BM25's {bm25:.4f}")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: check_demo_table.py README.md DEMO_OUTPUT", file=sys.stderr)
        return 2
    expected = readme_rows(Path(argv[1]).read_text())
    got = demo_rows(Path(argv[2]).read_text(errors="replace"))
    if not expected:
        print(f"check_demo_table: no demo table found in {argv[1]}", file=sys.stderr)
        return 2
    print(f"{'row':<8} {'README (local demo)':>26}   {'compose demo':>26}")
    for key in sorted(set(expected) | set(got), key=lambda k: (k != BM25, k)):
        e = " ".join(f"{x:.4f}" for x in expected[key]) if key in expected else "-"
        g = " ".join(f"{x:.4f}" for x in got[key]) if key in got else "-"
        print(f"{key:<8} {e:>26}   {g:>26}")
    problems = compare(expected, got)
    for problem in problems:
        print(f"check_demo_table: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_demo_table: {len(got)} rows equal to the README's within {TOLERANCE:g}; "
          "every q-log row above BM25")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
