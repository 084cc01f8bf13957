"""Changing the similarity of an existing index safely: apply, revert, recover, show, the three
strategies (close, clone, reopen), and the choice between Painless and the native plugin.

Module map: ``apply`` (apply/revert), ``auto`` (a decided q: at q = 1 nothing changes,
or qidf's change is reverted), ``recovery`` (recover), ``show`` and ``notice`` (what
is installed; interrupted operations), ``target`` (exact names and refusals), ``operation``
(lease + journal + steps + settling), ``close_swap`` / ``clone_swap`` / ``reopen_swap`` (the
strategies' steps), ``pipeline``, ``scope`` and ``shard_cost`` (which statistics scoring
searches use: qidf's default search pipeline, ``--stats``, and what per-shard statistics
cost), ``settle`` (finish or roll back from a journal), ``lease``, ``journal``, ``store``
(qidf's state index), ``index_ops`` (slow calls waited for with the engine's timeouts),
``snapshot`` and ``refresh`` (the statistics snapshot of ``--stats snapshot``),
``signals``, ``faults`` (test-only hook), ``record`` (``_meta.qidf``), ``state``,
``validate``, ``mode``, ``limits`` (queries that will not score with q-log).
"""

from qidf_ctl.install.apply import apply, revert
from qidf_ctl.install.auto import apply_auto, untouched
from qidf_ctl.install.lease import LeaseHeld
from qidf_ctl.install.mode import PLUGIN_NAME, choose_mode, presence
from qidf_ctl.install.notice import pending_notice
from qidf_ctl.install.recovery import recover
from qidf_ctl.install.refresh import refresh
from qidf_ctl.install.result import ChangeResult
from qidf_ctl.install.show import show
from qidf_ctl.install.state import META_KEY, SimilarityState, read_state
from qidf_ctl.install.strategy import COSTS, Strategy, check_supported
from qidf_ctl.install.validate import validate_on_scratch_index

__all__ = ["COSTS", "META_KEY", "PLUGIN_NAME", "ChangeResult", "LeaseHeld", "SimilarityState",
           "Strategy", "apply", "apply_auto", "check_supported", "choose_mode",
           "pending_notice", "presence", "read_state", "recover", "refresh", "revert", "show",
           "untouched", "validate_on_scratch_index"]
