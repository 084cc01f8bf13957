"""The keys of ``qidf.toml``, declared once: the loader validates against them and the docs
site renders its reference page (``docs/reference/qidf-toml.md``) from them when it is built,
so the two cannot disagree.

The same tables: ``python -c "import qidf_ctl.desired as d; print(d.reference_markdown())"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from qidf_ctl.cluster import profiles
from qidf_ctl.install.scope import CHOICES as STATS
from qidf_ctl.install.strategy import Strategy
from qidf_ctl.predictors.base import QueryKind

# What a target names: exactly one of these keys selects it.
SELECTORS = ("index", "alias", "pattern", "template", "component_template")
TEMPLATE_KINDS = ("template", "component_template")
MODES = ("auto", "script", "plugin")
STRATEGIES = tuple(s.value for s in Strategy)
FORMS = ("lucene", "rsj")
QUERY_KINDS = tuple(k.value for k in QueryKind)
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Key:
    """One key of a table: its type, default, allowed values and what it means."""

    name: str
    kind: str  # string, strings, number, integer, boolean, q
    help: str
    default: object = None
    choices: tuple[str, ...] = ()
    # Target selectors the key applies to (empty: every target); for [defaults] and targets.
    only_for: tuple[str, ...] = ()

    @property
    def type_name(self) -> str:
        if self.choices:
            return " \\| ".join(f'`"{c}"`' for c in self.choices)
        return {"strings": "list of strings", "q": 'number or `"auto"`',
                "fields": "table of field = q"}.get(self.kind, self.kind)

    @property
    def default_text(self) -> str:
        if self.default is None:
            return ""
        if isinstance(self.default, bool):
            return f"`{str(self.default).lower()}`"
        if isinstance(self.default, str):
            return f'`"{self.default}"`'
        return f"`{self.default}`"


TOP_KEYS: tuple[Key, ...] = (
    Key("version", "integer", "Format version of the file; 1.", FORMAT_VERSION),
    Key("clusters", "table", "Connection profiles, `[clusters.NAME]`."),
    Key("defaults", "table", "Values every target takes unless it sets its own."),
    Key("target", "array of tables", "`[[target]]`: one index, alias, pattern, index template "
        "or component template and the similarity it must have."),
)

# One declaration of a profile's keys, shared with the user's config file.
CLUSTER_KEYS: tuple[Key, ...] = tuple(
    Key(k.name, k.kind, k.help + (" Relative to the file's folder." if k.path else ""),
        False if k.kind == "boolean" else None) for k in profiles.KEYS)

# Keys that would put a secret into a checked-in file: refused with a pointer to *_env.
SECRET_KEYS = profiles.SECRET_KEYS

SIMILARITY_KEYS: tuple[Key, ...] = (
    Key("cluster", "string", "Connection profile (a `[clusters.NAME]`); without one, the "
        "command line's `--url` / `QIDF_URL`."),
    Key("q", "q", "q in [0, 2] (1 is BM25), or `\"auto\"`: predicted from the index's "
        "statistics by the pinned `predictor`; the plan records the statistics and q."),
    Key("predictor", "string", "The predictor `q = \"auto\"` uses, pinned so that a newer "
        "qidf cannot change q silently (e.g. `\"qidf-gate\"`, `\"paper\"`); required with "
        "auto."),
    Key("k1", "number", "BM25 k1 (>= 0).", 1.2),
    Key("b", "number", "BM25 b, in [0, 1].", 0.75),
    Key("form", "string", "IDF form.", "lucene", FORMS),
    Key("mode", "string", "How the similarity is installed: `auto` picks the native plugin "
        "when every data node has it, else Painless.", "auto", MODES),
    Key("strategy", "string", "How an existing index changes: `close` (a second without "
        "search), `clone` (no search downtime; a short write block) or `reopen` (Elasticsearch "
        "8.12+: one `_settings?reopen=true` call, a second without search).",
        "close", STRATEGIES),
    Key("stats", "string", "Statistics the index's scoring searches use: `snapshot` (the "
        "plugin's similarity scores plain searches with index-wide statistics taken once; "
        "`qidf snapshot refresh` takes them again), `index` (qidf's default search pipeline "
        "sends them as dfs_query_then_fetch, for every client; OpenSearch with the qidf "
        "plugin on every node), `shard` (the engine's default) or `auto` (`snapshot` when the "
        "index has several shards and the plugin's similarity and snapshots are on every "
        "node, else `index` when every node has the processor). Indices a template creates "
        "later get the engine's default until the next apply.", "auto", STATS),
    Key("field", "string", "Text field that must be affected (refused if its mapping names "
        "its own similarity); with auto, the field measured.",
        only_for=("index", "alias", "pattern")),
    Key("sample", "integer", "With auto: documents sampled for the statistics (default: "
        "exact when small, sampled when large, with a fixed seed).",
        only_for=("index", "alias", "pattern")),
    Key("queries_are", "string", "With auto: what the index is searched with, when you know "
        "it (`qidf apply --queries-are`): a text field searched with `code` gets q-log, one "
        "searched with `text` keeps BM25; recorded with the decision.",
        choices=QUERY_KINDS, only_for=("index", "alias", "pattern")),
    Key("judgments", "string", "With auto: your judged queries decide q, as `qidf apply --q "
        "auto --judgments` does: a folder `qidf judgments git` or `ubi` wrote (relative to the "
        "file's folder), a UBI log, or `\"ubi:\"` (the cluster's UBI indices). The older "
        "queries choose through sweep's bootstrap guard against the pinned predictor's q; the "
        "decision records the source, its size and the split.",
        only_for=("index", "alias", "pattern")),
    Key("existing", "boolean", "Also bring the indices that already match the template in "
        "line (each is closed or cloned); false: only the template and indices created "
        "after qidf last wrote it.", True, only_for=TEMPLATE_KINDS),
    Key("rollover", "boolean", "For data streams of the template: roll each over when its "
        "write index lacks the similarity, so the new write index has it (no close).",
        False, only_for=("template",)),
    Key("patterns", "strings", "Index patterns of an index template qidf creates when it "
        "does not exist (an existing template keeps its own).", only_for=("template",)),
    Key("priority", "integer", "Priority of an index template qidf creates.", 100,
        only_for=("template",)),
    Key("data_stream", "boolean", "Create the index template for data streams.", False,
        only_for=("template",)),
    Key("fields", "fields", "A q of their own for some text fields of the indices the "
        "template creates, e.g. `{ code = 0.3, doc = 1 }`: each gets a named similarity "
        "(`qidf_FIELD`; q 1 names the built-in `BM25`) and the template's mapping names it; "
        "the other fields keep `q`. The engine fixes a field's similarity when the index is "
        "created: existing indices keep theirs (`existing` brings them `q` only).",
        only_for=TEMPLATE_KINDS),
)

SELECTOR_KEYS: tuple[Key, ...] = (
    Key("index", "string", "One index, or an alias that points at one index."),
    Key("alias", "string", "Every index behind this alias."),
    Key("pattern", "string", "Every open index matching this wildcard pattern, e.g. "
        "`\"code-*\"` (hidden indices are not matched)."),
    Key("template", "string", "A composable index template: the template carries the "
        "similarity, so indices created later (rollover, by hand) get it at creation."),
    Key("component_template", "string", "A component template that carries the similarity, "
        "for the index templates that compose it."),
)

SIMILARITY_BY_NAME = {k.name: k for k in SIMILARITY_KEYS}
CLUSTER_BY_NAME = {k.name: k for k in CLUSTER_KEYS}


def _table(keys: tuple[Key, ...], *, scope: bool = False) -> list[str]:
    head = "| key | type | default | meaning |"
    rows = [head, "|---|---|---|---|"]
    for key in keys:
        meaning = key.help
        if scope and key.only_for:
            meaning += " Only for " + ", ".join(f"`{s}`" for s in key.only_for) + " targets."
        rows.append(f"| `{key.name}` | {key.type_name} | {key.default_text} | {meaning} |")
    return rows


def reference_markdown() -> str:
    """The file format's reference, generated from the declarations above."""
    lines = ["### Top level", "", *_table(TOP_KEYS), "",
             "### `[clusters.NAME]`: connection profiles", "", *_table(CLUSTER_KEYS), "",
             "`password`, `api_key` and `bearer_token` are refused: the file is meant to be "
             "checked in.", "",
             "### `[[target]]`: what to manage (exactly one of these)", "",
             *_table(SELECTOR_KEYS), "",
             "### The similarity (in `[[target]]`, or in `[defaults]` for every target)", "",
             *_table(SIMILARITY_KEYS, scope=True)]
    return "\n".join(lines) + "\n"
