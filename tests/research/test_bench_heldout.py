"""The held-out report: changes against BM25 read from measured points only, a safety
failure flagged, a q that was not searched reported as not measured (never as BM25)."""

from __future__ import annotations

from qidf_research.bench_heldout import SAFETY, report, summary


def _task(bm25: float, points: dict[str, float], predictions: dict[str, float]) -> dict:
    return {"documents": 1000, "queries": 1000,
            "ndcg10": {"bm25": bm25, **points},
            "predictions": {k: {"q": q, "reason": "", "ambiguous": False}
                            for k, q in predictions.items()}}


def test_summary_reads_each_predictor_at_its_own_point() -> None:
    data = _task(0.5, {"1": 0.5, "0.6": 0.49}, {"qidf-content": 1.0, "qidf-gate": 0.6})
    s = summary(data)
    assert s["qidf-content"] == (1.0, 0.0)
    assert s["qidf-gate"][0] == 0.6 and abs(s["qidf-gate"][1] + 0.01) < 1e-12
    assert s["oracle"] == ("1", 0.5)


def test_an_unsearched_q_is_not_measured() -> None:
    s = summary(_task(0.5, {}, {"qidf-content": 0.7}))
    assert s["qidf-content"] == (0.7, None)
    tasks = {"x-prose-1k": _task(0.5, {}, {"qidf-content": 0.7})}
    assert "0.7 / not measured" in report({"tasks": tasks})


ALL = {"qidf-content": 1.0, "qidf-content+queries": 1.0, "qidf-gate": 0.6}


def test_report_flags_a_loss_beyond_the_target() -> None:
    loss = SAFETY + 0.001
    text = report({"tasks": {
        "debdesc-prose-1k": _task(0.8, {"1": 0.8, "0.6": 0.8 - loss},
                                  ALL),
        "debdesc-prose": _task(0.7, {"1": 0.7, "0.6": 0.7}, ALL),
    }})
    worst = next(line for line in text.splitlines() if line.startswith("| debdesc |"))
    assert "+0.0000" in worst and "**fails**" in worst and "debdesc-prose-1k" in worst
    assert "not measured" not in text
