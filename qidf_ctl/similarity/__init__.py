"""The similarity as index settings: parameters, the Painless and plugin renderings, and
recognising what an index already holds. Pure: nothing here talks to a cluster."""

from qidf_ctl.similarity.params import Mode, QlogParams
from qidf_ctl.similarity.recognise import Installed, parse
from qidf_ctl.similarity.settings import (
    PLUGIN_TYPE,
    SETTING_PREFIX,
    SIMILARITY_NAME,
    flatten,
    plugin_similarity,
    render,
    same_settings,
    similarity_value,
    unflatten,
    update_body,
)

__all__ = ["PLUGIN_TYPE", "SETTING_PREFIX", "SIMILARITY_NAME", "Installed", "Mode",
           "QlogParams", "flatten", "parse", "plugin_similarity", "render", "same_settings",
           "similarity_value", "unflatten", "update_body"]
