"""`qidf apply --q auto`: the predicted q is installed and its statistics are recorded next
to the previous settings; revert removes the record."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from qidf_ctl import install
from qidf_ctl import predictors as predict

pytestmark = pytest.mark.integration


def _qidf(*args: str, url: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "qidf_ctl", *args, "--json"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QIDF_URL": url})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_apply_q_auto_records_prediction(cluster, parity_index, engine_url):
    expected = predict.predict_for_index(cluster, parity_index)
    try:
        result = _qidf("apply", parity_index, "--q", "auto", "--mode", "script", url=engine_url)
        assert result["changed"]
        shown = install.show(cluster, parity_index)
        assert shown["params"]["q"] == expected.q
        recorded = shown["record"]["installed"]["prediction"]
        assert recorded["q"] == expected.q and recorded["predictor"] == expected.predictor
        assert recorded["evidence"] == expected.evidence and "ambiguous" in recorded
        assert shown["record"]["previous"] == {}
    finally:
        install.revert(cluster, parity_index)
    assert install.show(cluster, parity_index)["record"] is None
