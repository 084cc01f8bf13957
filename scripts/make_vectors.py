"""Regenerate tests/vectors/qlog_idf.json: q-log IDF values computed with 50-digit mpmath.

The file is shared by the Python tests (tests/unit/test_qlog.py) and the Java plugin's tests,
so both implementations are checked against the same numbers. Run:
    python scripts/make_vectors.py
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath

mpmath.mp.dps = 50
OUT = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "qlog_idf.json"

QS = ["0", "0.05", "0.3", "0.5", "0.7", "0.9", "0.99", "0.999999", "0.9999999999", "1",
      "1.0000000001", "1.000001", "1.01", "1.3", "1.5", "2"]
STATS = [(1, 1), (2, 1), (10, 1), (10, 5), (10, 10), (1000, 1), (1000, 50), (1000, 499),
         (1000, 500), (1000, 501), (1000, 1000), (182440, 1), (182440, 2), (182440, 90000),
         (182440, 182440), (2147483647, 1), (2147483647, 1073741824)]


def lnq(x: mpmath.mpf, q: mpmath.mpf) -> mpmath.mpf:
    if q == 1:
        return mpmath.log(x)
    return (mpmath.power(x, 1 - q) - 1) / (1 - q)


def main() -> None:
    rows = []
    for q_text in QS:
        q = mpmath.mpf(q_text)
        for n_docs, df in STATS:
            odds = (mpmath.mpf(n_docs) - df + mpmath.mpf("0.5")) / (df + mpmath.mpf("0.5"))
            lucene = lnq(1 + odds, q)
            rsj = max(mpmath.mpf(0), lnq(odds, q))
            for form, value in (("lucene", lucene), ("rsj", rsj)):
                rows.append({"q": float(q_text), "N": n_docs, "n": df, "form": form,
                             "idf": float(value), "idf_text": mpmath.nstr(value, 30)})
    payload = {
        "about": "q-log IDF test vectors shared by qidf_ctl.qlog (Python) and plugin-java. "
                 "lucene: ln_q(1 + (N-n+0.5)/(n+0.5)); rsj: max(0, ln_q((N-n+0.5)/(n+0.5))). "
                 "Values from mpmath at 50 digits; compare with relative tolerance 1e-12 "
                 "(absolute 1e-15 near 0). Regenerate: python scripts/make_vectors.py",
        "vectors": rows,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"wrote {len(rows)} vectors to {OUT}")


if __name__ == "__main__":
    main()
