"""Reference sections the site build renders from the code, so that no page copies them.

A page asks for one with a line of its own, ``<!-- generated: NAME -->``; the build replaces
that line with the section and fails on a name it does not know.

- ``cli``: every command's help (``cli_reference.py``, from the typer app);
- ``exit-codes``: the exit codes, from ``qidf_ctl/errors.py``;
- ``qidf-toml``: the keys of ``qidf.toml``, from ``qidf_ctl/desired/spec.py``;
- ``library-map``: the map of the library in ``qidf_ctl/__init__.py``'s docstring.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import cli_reference

MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.MULTILINE)


def cli() -> str:
    from qidf_ctl.cli import app

    return cli_reference.render(app)


def _documented_meanings(doc: str) -> dict[int, str]:
    """The table in errors.py's docstring (an RST simple table): code -> the long meaning."""
    rules = [i for i, line in enumerate(doc.splitlines()) if re.fullmatch(r"=+ +=+", line)]
    if len(rules) != 3:
        raise ValueError("qidf_ctl/errors.py: its docstring no longer holds the exit-code table")
    meanings: dict[int, str] = {}
    code = None
    for line in doc.splitlines()[rules[1] + 1:rules[2]]:
        head = re.match(r"(\d+)\s+(.*)", line)
        if head:
            code = int(head.group(1))
            meanings[code] = head.group(2).strip()
        elif code is not None and line.strip():
            meanings[code] += " " + line.strip()
    return meanings


def _rst_literals(text: str) -> str:
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def exit_codes() -> str:
    from qidf_ctl import errors

    meanings = _documented_meanings(errors.__doc__ or "")
    if set(meanings) != set(errors.EXIT_CODES):
        raise ValueError(f"qidf_ctl/errors.py: the docstring documents {sorted(meanings)}, "
                         f"EXIT_CODES holds {sorted(errors.EXIT_CODES)}")
    names = {value: name for name, value in vars(errors).items()
             if name.startswith("EXIT_") and isinstance(value, int)}
    raised: dict[int, list[str]] = {}
    varies: list[str] = []  # an exit_code property: the code follows the cluster's answer
    for name, value in sorted(vars(errors).items()):
        if not (isinstance(value, type) and issubclass(value, errors.QidfError)):
            continue
        code = getattr(value, "exit_code", None)
        if isinstance(code, int):
            raised.setdefault(code, []).append(f"`{name}`")
        elif isinstance(code, property):
            varies.append(f"- `{name}`: {(value.__doc__ or '').strip()}")
    lines = ["| code | constant | meaning | raised as | `qidf --help` says |",
             "|---:|---|---|---|---|"]
    for code, short in errors.EXIT_CODES.items():
        lines.append(f"| {code} | `{names[code]}` | {_rst_literals(meanings[code])} | "
                     f"{', '.join(raised.get(code, []))} | {short} |")
    if varies:
        lines += ["", "Raised with a code that depends on the case:", "", *varies]
    return "\n".join(lines) + "\n"


def qidf_toml() -> str:
    from qidf_ctl.desired.spec import reference_markdown

    return re.sub(r"^### ", "## ", reference_markdown(), flags=re.MULTILINE)


def library_map() -> str:
    """The package docstring's map of the library, after its opening paragraph."""
    import qidf_ctl

    paragraphs = (qidf_ctl.__doc__ or "").strip().split("\n\n")
    return _rst_literals("\n\n".join(paragraphs[1:])) + "\n"


SECTIONS: dict[str, Callable[[], str]] = {
    "cli": cli, "exit-codes": exit_codes, "qidf-toml": qidf_toml, "library-map": library_map}


def expand(markdown: str, where: str) -> str:
    def section(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in SECTIONS:
            raise ValueError(f"{where}: no generated section {name!r} "
                             f"(known: {', '.join(SECTIONS)})")
        return SECTIONS[name]().rstrip("\n")

    return MARKER.sub(section, markdown)
