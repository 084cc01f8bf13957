"""The q-logarithmic IDF: the one place the formula lives on the Python side."""

from qidf_ctl.formula.qlog import (
    Q_MAX,
    Q_MIN,
    IdfForm,
    InvalidParameter,
    idf,
    ln_q,
    rsj_odds,
    validate_q,
)

__all__ = ["Q_MAX", "Q_MIN", "IdfForm", "InvalidParameter", "idf", "ln_q", "rsj_odds",
           "validate_q"]
