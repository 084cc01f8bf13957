"""Whether a text's lines are shaped like source code, in any mainstream language.

``text_shape`` reads code by its punctuation (braces, semicolons, ``=``, ``name(``). That
misses languages that write blocks with words: Ruby (``def``/``end``, calls without
parentheses), shell (``then``/``fi``, ``$VAR``), Lua, Elixir (``do``/``end``), Haskell
(``::``, equations), SQL, configuration files (YAML, INI/TOML, properties) and Makefiles.
A repository's files in those languages read as text by punctuation alone, and a field of
them kept BM25.

So a second reading, line by line: a **code line** is a non-blank line shaped as a
statement, declaration, block keyword, assignment, configuration entry or markup tag (the
patterns below, one list for every language); comment lines (``#``, ``//``, ``--``, ``/*``,
``*``, ``;``, ``%``, ``<!--``) are neither code nor prose evidence and are not counted.
A text whose counted lines are at least ``CODE_LINE_SHARE_MIN`` code lines, and at least
``CODE_LINES_MIN`` of them, is code by its lines. Prose lines (a sentence, a wrapped
docstring line, a commit message) start with a word and go on with words; the patterns
require what prose does not write: a keyword followed by code syntax, an operator between
identifiers, a line ending in ``{`` or ``;``, a ``key: value`` entry, a lone ``end``.

Why at least two lines: one line can be a conventional commit subject (``fix: handle
nulls``) or a heading; a query of one line is read by its punctuation alone.

The share of real files of each language that pass is measured and committed
(benchmarks/retrieval/detector.md, with the command that regenerates it).
"""

from __future__ import annotations

import re

CODE_LINE_SHARE_MIN = 0.5
CODE_LINES_MIN = 2

# Comment lines: counted neither as code nor as prose (a file's comments are prose in code).
COMMENT = re.compile(r"^(#(?!!)|//|--(?!\w)|/\*|\*|;|%|<!--|'''|\"\"\"|REM\b|rem\b|\{-|-\})")

_ID = r"[A-Za-z_$@][\w$@.:\->\[\]'\"]*"
_CODE_CHAR = r"[(\[=<>!_.$:'\"]"
_KEYWORD_ARG = (r"(\S*[._$@()\[\]'\":=]\S*|None|True|False|nil|null|true|false|self|this|"
                r"-?\d[\w.]*)")
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx)) for name, rx in (
    # Block structure: a line ending in a brace or a statement's semicolon, a lone closer, a
    # block opened with a word after code syntax ("items.each do |x|", "if [ -f x ]; then").
    ("block_end", r"(\{|\}|\};|\);|\];|[\w\"')\]]\s*;|->|=>|:=)\s*$"),
    ("block_word", r"[(\[.;=|].*\b(do|then)(\s*\|[^|]*\|)?\s*$"),
    ("closer", r"^(\}|\]|\)|end|fi|done|esac|endif|endfor|endwhile|endfunction|end\)|\)\s*;|"
               r"\}\s*[),;]*|else|try|finally|begin|rescue|ensure|loop|in|where|else:|try:|"
               r"finally:|except:|\):|\)\s*\{|\]\s*,|\}\s*,|\)\s*,|\)\s*where)[;,]?\s*$"),
    # A line that starts with an operator or a comma continues an expression, an export
    # list or a data declaration ("| Tip", "-> Int", ", insertWith"); a Markdown table row
    # (which also ends with "|") does not count.
    ("continuation", r"^(->|=>|::|<-|\+\+|&&|\|\||\|(?!.*\|\s*$)|,)\s*\S"),
    # C declarations: a return type alone, a parameter with a pointer or reference.
    ("c_declaration", r"^(static\s+|inline\s+|extern\s+|const\s+)*(void|int|char|bool|long|"
                      r"short|double|float|unsigned|size_t|ssize_t|u?int\d+_t)\s*\**$|"
                      r"\w\s*[*&]+\s*\w+\s*(\[\w*\])?\s*[,)]"),
    # Data: an entry of a literal table or list ("'key': value,", "(255, 0, 0),", "None,").
    ("literal_entry", r"^([\"'(\[{]|-?\d|None\b|True\b|False\b|nil\b|null\b|true\b|false\b)"
                      r".*[,;]\s*((#|//).*)?$"),
    # Declarations: a keyword, then a name, then code syntax or the line's end.
    ("declaration", r"^(export\s+|pub(\([\w:]+\))?\s+|public\s+|private\s+|protected\s+|"
                    r"static\s+|async\s+|local\s+|abstract\s+|final\s+|override\s+|"
                    r"inline\s+|virtual\s+|unsafe\s+)*"
                    r"(def|defp|defmacro|defmodule|defstruct|defimpl|defprotocol|class|"
                    r"module|struct|enum|union|trait|interface|impl|fn|func|function|sub|"
                    r"proc|namespace|newtype|object|record|typedef|template|macro_rules!)"
                    r"(\s+[\w:.<>$&*,\[\]!?']+)?\s*([({:<=;\[]|\bdo\b|\bwhere\b|\bextends\b|"
                    r"\bimplements\b|$)"),
    ("go_func", r"^func\s*\("),
    # Imports and includes, each in its language's own shape.
    ("import", r"^(import\s+(\{|\*|[\"']|(static\s+)?[\w.]+\.\*?\s*;|[\w.]+\s*(,|$|\s+as\s)|"
               r"[\w{}, *]+\s+from\s|qualified\s|[A-Z][\w.]*(\s|$))|from\s+[\w.]+\s+import\s|"
               r"#\s*(include|define|ifn?def|endif|if|else|elif|pragma|undef)\b|"
               r"package\s+[\w.]+\s*;?$|(require|require_relative|load)\s*\(?\s*['\"]|"
               r"(use|using)\s+[\w:\\.{}*, ]+;\s*$|(include|extend|alias)\s+[A-Z][\w:.]*\s*$|"
               r"library\(\w+\)|extern\s+crate\s+\w+|mod\s+\w+;)"),
    # Control flow with code syntax (not a sentence that starts with "if" or "for").
    ("control_c", r"^(\}\s*)?(if|else\s+if|elseif|while|for|foreach|switch|catch)\s*\("),
    ("control_py", r"^(if|elif|while|for|with|except|match|case)\s.*([(\[=<>!_.]|\sin\s|\sis\s).*"
                   r"[^\s.]:\s*$"),
    ("control_word", r"^(case\s.+\sof|(when|elsif|unless|until)\s+([:\"'$@]|\w+[.?!(\[_:]))"),
    ("statement", r"^(return|yield|raise|throw|break|continue|next|redo|retry|puts|print|"
                  r"echo|printf|exit|assert|await|defer|del|pass|goto|delete|new)"
                  r"(\s+" + _KEYWORD_ARG + r")?\s*;?$|^(return|yield|raise|throw|puts|print|"
                  r"echo|exit|assert|await|delete)\b.*;$"),
    ("shell_builtin", r"^(set|export|unset|local|readonly|declare|source|shift|trap|cd|eval|"
                      r"exec)\s+-?[\w$\"'=-]+(\s|$)"),
    # Assignments and bindings: "name = value", "let x =", "my $x =", "f :: Type".
    ("assignment", r"^(let|var|const|val|my|our|local|auto|mut|int|char|float|double|bool|"
                   r"long|short|unsigned|string|String|final|static)?\s*" + _ID +
                   r"(\s*,\s*" + _ID + r"){0,6}\s*(=|:=|\+=|-=|\*=|/=|%=|\|=|&=|\^=|\|\|=|&&=|"
                   r"<<=|>>=|\?\?=|<-|\.=)\s*[^=\s]"),
    ("equation", r"^[a-z_][\w']*(\s+[\w'_\[\](),:]+){0,6}\s+=\s+\S"),
    ("signature", r"^[\w']+\s+::\s+\S"),
    ("operator", r"[\w)\]'\"]\s*(==|!=|===|!==|<=|>=|&&|\|\||\+\+|\|>|<>|=~|!~)\s*"
                 r"[\w(\['\"$@:]"),
    ("sigil", r"(\$\{?[A-Za-z_(]|\$\d\b|@\w+\[|%\w+\{|(^|\s):[a-z_]\w*[,)\s]|"
              r"\w+:\s+[\w:'\"\[{]+,\s*$)"),
    # Statement-shaped calls: a line that is a call (not a sentence that mentions one).
    ("call", r"^[\w.$:>\-\[\]]+[!?]?\(.*[)({,;]\s*$"),
    ("method_chain", r"^\.?\w+(\.\w+)+(\s*[({]|\s*$)"),
    ("decorator", r"^@[\w.]+(\(.*\))?\s*$"),
    # Configuration and data: sections, "key: value" (lower-case keys: "Note: ..." and a
    # commit's "Signed-off-by:" trailer are prose), JSON, YAML list entries.
    ("section", r"^\[[\w .\-\"/:*]+\]\s*$"),
    ("config_entry", r"^(\"[^\"]+\"|'[^']+'|[a-z_][\w.\-/]*)\s*:(\s+\S.*)?$"),
    ("yaml_item", r"^-\s+[a-z_\"'][\w.\-\"']*\s*:(\s|$)"),
    ("json", r"^[{\[\]}],?$"),
    # Markup: a line opening with a tag.
    ("markup", r"^</?[A-Za-z][\w:.-]*(\s[^>]*)?/?>|^<[!?][\w-]"),
    # Shell: shebang, function definitions, pipes, redirections, && and ||.
    ("shell", r"^#!|^\w[\w-]*\s*\(\)\s*\{?\s*$|\w\s+\|\s+\w|\s[12]?>>?\s*(/|&\d|\$)|"
              r"\s2>&1|\s&&\s|\s\|\|\s"),
    # SQL, upper-case keywords (prose writes "Select the ...", not "SELECT a FROM").
    ("sql", r"^(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|CREATE|ALTER|DROP|GRANT|REVOKE|"
            r"COMMENT\s+ON|WITH\s+\w+\s+AS)\s+\S|^(FROM|WHERE|(LEFT|RIGHT|INNER|OUTER|"
            r"CROSS)?\s*JOIN|GROUP\s+BY|ORDER\s+BY|HAVING|VALUES|SET|BEGIN|COMMIT|UNION|AND|"
            r"OR|ON|LIMIT|RETURNS|DECLARE|LANGUAGE|AS|END|RETURN|THEN|WHEN|ELSE|CASE)\b.*"
            r"(=|\(|;|'|\.\w|\*)"),
    ("sql_clause", r"^(LANGUAGE|RETURNS|IMMUTABLE|STABLE|VOLATILE|STRICT|PARALLEL|SECURITY|"
                   r"COST|OUT|INOUT|PRIMARY\s+KEY|FOREIGN\s+KEY|REFERENCES|CONSTRAINT)\b|"
                   r"^\w+\s+(int\d?|integer|bigint|smallint|serial|text|varchar(\(\d+\))?|"
                   r"char\(\d+\)|boolean|bool|oid|tid|timestamp\w*|numeric(\([\d, ]+\))?|real|"
                   r"bytea|jsonb?|uuid|date)\b.*[,)]\s*$"),
    ("sql_lower", r"^(select\s+[\w*,.\s]+\s+from\s|insert\s+into\s|update\s+\w+\s+set\s|"
                  r"delete\s+from\s|create\s+(table|index|view|function|or\s+replace)\s|"
                  r"alter\s+table\s|drop\s+(table|index|view)\s)"),
    # Dockerfile and Makefile directives.
    ("directive", r"^(FROM|RUN|COPY|ADD|ENV|WORKDIR|CMD|ENTRYPOINT|EXPOSE|ARG|LABEL|USER|"
                  r"VOLUME)\s+\S|^\.PHONY"),
))


# Every pattern in one expression: the detector asks "any?" once per line.
ANY = re.compile("|".join(f"(?:{rx.pattern})" for _, rx in PATTERNS))
# A text is judged on its first MAX_LINES counted lines (a file's first screens say what it
# is), which bounds the cost of a sample of long files.
MAX_LINES = 60
# ... and each line on its first MAX_LINE_CHARS characters (a minified line says nothing more
# past them, and bounds the patterns' work).
MAX_LINE_CHARS = 240


def is_comment(line: str) -> bool:
    return COMMENT.match(line) is not None


def code_line_kind(line: str) -> str | None:
    """The first pattern a (stripped, non-comment) line matches, or None (a prose line)."""
    for name, rx in PATTERNS:
        if rx.search(line):
            return name
    return None


# Block comments and documentation blocks: opening mark -> closing mark. Their lines are
# comments (a file's license header, a Python docstring, Perl's POD), not counted.
BLOCKS = (("/*", "*/"), ("{-", "-}"), ('"""', '"""'), ("'''", "'''"), ("--[[", "]]"),
          ("<!--", "-->"), ("=pod", "=cut"), ("=head", "=cut"), ("=over", "=cut"),
          ("=item", "=cut"), ("=begin", "=cut"), ("=encoding", "=cut"))


def _block_opened(line: str) -> str | None:
    """The closing mark a line leaves open (a block comment started and not closed)."""
    for opening, closing in BLOCKS:
        at = line.find(opening)
        if at < 0 or (opening.startswith("=") and at != 0):
            continue
        if opening in ('"""', "'''") and at > 0 and not line[:at].rstrip().endswith(
                ("=", "(", ",", "r", "b", "u", "f")):
            continue
        if closing not in line[at + len(opening):]:
            return closing
    return None


def code_line_counts(text: str) -> tuple[int, int]:
    """(code lines, counted lines): non-blank lines outside comments are counted."""
    code = counted = 0
    inside: str | None = None
    for raw in text.splitlines():
        line = raw.strip()[:MAX_LINE_CHARS]
        if inside is not None:
            if inside in line:
                inside = None
            continue
        opened = _block_opened(line)
        if opened is not None and (is_comment(line) or line.startswith("=") or line.lstrip(
                "rbuRBU").startswith(('"""', "'''"))):
            inside = opened
            continue
        if not line or is_comment(line):
            continue
        counted += 1
        if ANY.search(line) is not None:
            code += 1
        if counted >= MAX_LINES or code >= CODE_LINE_SHARE_MIN * MAX_LINES:
            break  # judged: the first screens are read, or half of them are already code
    return code, counted


def code_by_lines(text: str) -> bool:
    """Whether most of a text's counted lines, and at least two, are code lines."""
    code, counted = code_line_counts(text)
    return code >= CODE_LINES_MIN and code >= CODE_LINE_SHARE_MIN * counted
