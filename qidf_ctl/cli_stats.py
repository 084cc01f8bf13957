"""``qidf stats`` and ``qidf predict``: corpus statistics and a label-free q (to be filled)."""

from __future__ import annotations
