"""The similarity's parameters and how it is installed: validated once, at construction."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any

from qidf_ctl.formula import IdfForm, InvalidParameter, validate_q


def form_note(form: IdfForm | str) -> str:
    """`` form=rsj (...)`` for the paper's IDF form, nothing for the default ``lucene``."""
    if IdfForm(form) is IdfForm.LUCENE:
        return ""
    return " form=rsj (the paper's IDF: ln_q of the RSJ odds, not Lucene's ln_q(1 + odds))"


class Mode(str, Enum):
    """How the similarity is installed: Painless scripted similarity or the native plugin."""

    SCRIPT = "script"
    PLUGIN = "plugin"


@dataclass(frozen=True)
class QlogParams:
    """q, BM25's k1 and b, and the IDF form; anything outside its domain raises
    ``InvalidParameter`` so that no unchecked number ever reaches a script or a setting."""

    q: float
    k1: float = 1.2
    b: float = 0.75
    form: IdfForm = IdfForm.LUCENE

    def __post_init__(self) -> None:
        object.__setattr__(self, "q", validate_q(self.q))
        try:
            k1, b = float(self.k1), float(self.b)
        except (TypeError, ValueError):
            raise InvalidParameter(f"k1 and b must be numbers, got {self.k1!r}, {self.b!r}") \
                from None
        if not math.isfinite(k1) or k1 < 0:
            raise InvalidParameter(f"k1 must be a finite number >= 0, got {self.k1!r}")
        if not math.isfinite(b) or not 0 <= b <= 1:
            raise InvalidParameter(f"b must be a number in [0, 1], got {self.b!r}")
        try:
            form = IdfForm(self.form)
        except ValueError:
            raise InvalidParameter(f"form must be 'lucene' or 'rsj', got {self.form!r}") from None
        object.__setattr__(self, "k1", k1)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "form", form)

    def describe(self) -> str:
        """Every parameter, as the Painless script's marker comment holds them (a change here
        would change the script text, so the settings, of every index installed before)."""
        return f"q={self.q:g} form={self.form.value} k1={self.k1:g} b={self.b:g}"

    def shown(self) -> str:
        """The parameters as a person reads them: the IDF form only when it is not the
        default (``lucene``), and then with what it means."""
        return f"q={self.q:g} k1={self.k1:g} b={self.b:g}{form_note(self.form)}"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["form"] = self.form.value
        return data
