"""docs/how-to/privileges.md shows exactly the roles qidf_ctl/cluster/roles.py defines (the data the
secured test node grants and the error hints quote)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from qidf_ctl.cluster import roles

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "privileges.md"


def _blocks() -> list[dict]:
    return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)]


def test_the_documented_roles_are_the_code():
    blocks = _blocks()
    opensearch = roles.opensearch_roles(["code-*"])
    elasticsearch = roles.elasticsearch_roles(["code-*"])
    assert blocks == [opensearch["qidf_operator"], opensearch["qidf_auto_mode"],
                      opensearch["qidf_clone"], opensearch["qidf_stats"],
                      opensearch["qidf_search"], opensearch["qidf_query_time"],
                      opensearch["qidf_agent"],
                      elasticsearch["qidf_operator"], elasticsearch["qidf_search"]]


def test_every_action_appears_in_the_per_command_table():
    table = DOC.read_text().split("## Per command", 1)[1].split("\n## ", 1)[0]
    actions = (set(roles.OPERATOR_CLUSTER) | set(roles.OPERATOR_INDEX) | set(roles.OWN_INDEX)
               | set(roles.CLONE_INDEX) | set(roles.AUTO_MODE_CLUSTER) | set(roles.STATS_CLUSTER)
               | set(roles.SNAPSHOT_CLUSTER) | set(roles.SNAPSHOT_INDEX))
    assert sorted(a for a in actions if f"`{a}`" not in table) == []
