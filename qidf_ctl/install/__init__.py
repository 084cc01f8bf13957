"""Changing the similarity of an existing index: apply, revert, show, and the choice between
Painless and the native plugin."""

from qidf_ctl.install.apply import apply, revert
from qidf_ctl.install.mode import PLUGIN_NAME, choose_mode, presence
from qidf_ctl.install.result import ChangeResult
from qidf_ctl.install.show import show
from qidf_ctl.install.state import META_KEY, SimilarityState, read_state
from qidf_ctl.install.validate import validate_on_scratch_index

__all__ = ["META_KEY", "PLUGIN_NAME", "ChangeResult", "SimilarityState", "apply",
           "choose_mode", "presence", "read_state", "revert", "show",
           "validate_on_scratch_index"]
