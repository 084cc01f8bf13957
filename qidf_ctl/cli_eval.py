"""``qidf eval`` and ``qidf sweep``: retrieval quality on a live index (to be filled)."""

from __future__ import annotations
