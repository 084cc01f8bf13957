"""Index settings from CI: a desired-state file (``qidf.toml``) that names indices,
aliases, patterns and templates with the similarity each must have; ``plan`` shows what
applying it would change, ``apply`` does it, ``check`` reports drift with its own exit code.

Usage from Python::

    from qidf_ctl import desired
    state = desired.load("qidf.toml")
    conns = desired.Connections(state.profiles, fallback=lambda: settings)
    plan = desired.make_plan(state, conns)
    report = desired.apply_plan(plan, conns)
"""

from qidf_ctl.desired.check import CheckReport, check
from qidf_ctl.desired.connections import Connections
from qidf_ctl.desired.execute import ApplyReport, apply_plan
from qidf_ctl.desired.items import Plan, PlanItem
from qidf_ctl.desired.load import DEFAULT_FILE, DesiredStateError, load, one_index, parse
from qidf_ctl.desired.model import DesiredState, Profile, Similarity, Target
from qidf_ctl.desired.plan import make_plan
from qidf_ctl.desired.render import RenderFormat, render_format
from qidf_ctl.desired.spec import reference_markdown

__all__ = ["DEFAULT_FILE", "ApplyReport", "CheckReport", "Connections", "DesiredState",
           "DesiredStateError", "Plan", "PlanItem", "Profile", "RenderFormat", "Similarity",
           "Target", "apply_plan", "check", "load", "make_plan",
           "one_index", "parse", "reference_markdown", "render_format"]
