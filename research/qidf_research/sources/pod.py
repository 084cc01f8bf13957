"""Perl's POD markup to plain text: sections, inline codes, entities."""

from __future__ import annotations

import re
from html.entities import name2codepoint

_POD_ENTITIES = {"lt": "<", "gt": ">", "sol": "/", "verbar": "|", "quot": '"', "amp": "&",
                 "apos": "'", "nbsp": " "}


def _pod_entity(name: str) -> str:
    if name in _POD_ENTITIES:
        return _POD_ENTITIES[name]
    if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", name):
        return chr(int(name, 16 if name.startswith("0x") else 10))
    return chr(name2codepoint[name]) if name in name2codepoint else ""


def _pod_code(code: str, inner: str) -> str:
    if code in "XZ":
        return ""
    if code == "E":
        return _pod_entity(inner.strip())
    if code == "L":
        if "|" in inner:
            return inner.split("|", 1)[0]
        return " ".join(inner.replace('"', "").replace("/", " ").split())
    return inner  # B, I, C, F, S: the text itself


def pod_plain(text: str) -> str:
    """POD text with its formatting codes (B<>, C<< >>, L<text|target>, E<gt> ...) resolved."""
    out, _ = _pod_scan(text, 0, None)
    return out


_POD_CODE_RE = re.compile(r"([IBCLEFSXZ])(<+)")


def _pod_scan(s: str, i: int, close: str | None) -> tuple[str, int]:
    """Plain text of ``s`` from ``i`` up to ``close`` (``>`` repeated; None: end of text).

    As perlpodspec says, ``C<a>`` ends at the first ``>`` (no nesting of bare angle brackets)
    and ``C<< a >>`` at the first ``>>`` after whitespace.
    """
    out: list[str] = []
    while i < len(s):
        if close is not None and s.startswith(close, i) and (
                len(close) == 1 or s[i - 1:i].isspace()):
            return "".join(out), i + len(close)
        m = _POD_CODE_RE.match(s, i)
        if m:  # "C<<" without whitespace after it is "C<" whose text starts with "<"
            n = len(m.group(2)) if s[m.end():m.end() + 1].isspace() else 1
            inner, i = _pod_scan(s, m.start(2) + n, ">" * n)
            out.append(_pod_code(m.group(1), inner.strip() if n > 1 else inner))
            continue
        out.append(s[i])
        i += 1
    return "".join(out), i


def pod_sections(text: str) -> dict[str, list[str]]:
    """``=head1`` name -> its plain-text paragraphs; verbatim (code) paragraphs left out.

    ``=head2``-``=head4`` and ``=item`` labels stay as paragraphs, as ``.SS``/``.TP`` labels
    do in ``_man_sections``; ``=begin``/``=end`` and ``=for`` blocks (other formats) go.
    """
    sections: dict[str, list[str]] = {}
    current: str | None = None
    in_pod, skip_to = False, ""
    for para in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")):
        para = para.strip("\n")
        if not para:
            continue
        command = re.match(r"=([a-zA-Z]\w*)\s*(.*)", para, re.S)
        if not in_pod:
            if command and command.group(1) != "cut":
                in_pod = True
            else:
                continue
        if skip_to:
            if command and command.group(1) == "end" and command.group(2).split()[:1] == [skip_to]:
                skip_to = ""
            continue
        if command:
            word, arg = command.group(1), " ".join(command.group(2).split())
            if word == "cut":
                in_pod = False
            elif word == "begin":
                skip_to = arg.split()[0] if arg else "?"
            elif word == "head1":
                current = pod_plain(arg).strip().upper()
                sections[current] = []
            elif current is not None and word in ("head2", "head3", "head4", "item"):
                label = pod_plain(arg).strip()
                if label not in ("*", "") and not re.fullmatch(r"\d+\.?", label):
                    sections[current].append(label)
            continue
        if current is None or para[0] in " \t":
            continue
        sections[current].append(" ".join(pod_plain(para).split()))
    return sections


def pod_summary_and_description(text: str) -> tuple[str, str]:
    """(NAME summary after `` - ``, DESCRIPTION text) of one POD document."""
    sec = pod_sections(text)
    name = next(iter(sec.get("NAME", [])), "")  # its first paragraph: the NAME line
    parts = re.split(r"\s+--?\s+", name, maxsplit=1)
    return (parts[1] if len(parts) == 2 else ""), " ".join(sec.get("DESCRIPTION", []))
