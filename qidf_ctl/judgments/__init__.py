"""Judgments the user already owns, as qrels: a repository's history (a commit's message is a
query, the files it changed are its answer), search clicks in the User Behavior Insights
schema, and the searches and fetches of agents.

Modules: ``history`` (git log, read once), ``messages`` (a message as a query), ``filters``
(which commits make a query), ``renames`` (a commit's paths under today's names),
``matching`` (paths to document ids), ``split`` (older queries choose, newer ones report),
``folder`` (the files written and read back), ``from_git`` (the steps together).

    from qidf_ctl.judgments import judgments_from_git, write_folder
    found = judgments_from_git(cluster, "~/src/cargo", "cargo-code", "path")
    write_folder("judgments/cargo", found)
"""

from qidf_ctl.judgments.filters import Rules
from qidf_ctl.judgments.folder import Judgments, read_folder, write_folder
from qidf_ctl.judgments.from_git import GitOptions, judgments_from_git

__all__ = ["GitOptions", "Judgments", "Rules", "judgments_from_git", "read_folder",
           "write_folder"]
