"""Unit tests share one process, and with it the registry of secrets to redact: each test
starts from none (a CLI process knows only the secrets it was given; a one-character
"secret" a URL fuzz registered would otherwise be masked in the next test's messages)."""

from __future__ import annotations

import importlib

import pytest

_redact = importlib.import_module("qidf_ctl.cluster.redact")


@pytest.fixture(autouse=True)
def _no_secrets_from_other_tests():
    _redact.forget_all()
    yield
