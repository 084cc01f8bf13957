"""What commands print, said once: `apply --q auto --dry-run` gives its reason once (issue
25: it printed it twice, as progress and as the result). The library's side, that
``predict_for_index`` reports progress and not its reason, is in test_predict.py."""

from __future__ import annotations

from types import SimpleNamespace

from qidf_ctl import predictors

from .test_cli import engine, run  # noqa: F401 - engine: the fake cluster fixture

REASON = "most sampled queries look like code -> q 0.70"


def test_apply_q_auto_dry_run_prints_its_reason_once(engine, capsys, monkeypatch):  # noqa: F811
    def predict_for_index(cluster, index, field=None, *args, progress=None, **kwargs):
        if progress is not None:
            progress(f"measuring {index} field body")  # what the library reports
        return SimpleNamespace(q=0.7, reason=REASON, record=lambda: {"q": 0.7})

    monkeypatch.setattr(predictors, "predict_for_index", predict_for_index)
    code, out, err = run(["apply", "code", "--q", "auto", "--dry-run"], capsys, monkeypatch)
    assert code == 0, err
    assert (out + err).count(REASON) == 1 and f"q auto: {REASON}" in err
    assert "q=0.7" in out and engine.writes() == []
