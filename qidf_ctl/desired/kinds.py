"""The words a plan is made of: what an item is (its kind), what happens to it (its action),
and the saved plan's format tag. Plain constants that the plan's data (``items``), its
strict reader (``saved``) and everything that builds or runs a plan import from here."""

from __future__ import annotations

from qidf_ctl.desired.templates import COMPONENT_TEMPLATE, INDEX_TEMPLATE

INDEX = "index"
DATA_STREAM = "data_stream"
KINDS = (INDEX, INDEX_TEMPLATE, COMPONENT_TEMPLATE, DATA_STREAM)

NONE, UPDATE, CREATE, ROLLOVER = "none", "update", "create", "rollover"
REVERT = "revert"  # an index back to the similarity it had before qidf (auto decided q = 1)
ACTIONS = (NONE, UPDATE, CREATE, ROLLOVER, REVERT)

PLAN_FORMAT = "qidf-plan/1"
