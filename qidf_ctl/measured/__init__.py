"""q measured on the index itself, from an unlabeled query sample: simulated known-item
queries shaped like the real ones, searched at each q of a short grid through the query-time
path (boosted term queries; the index never changes, read privileges only), and the q that
finds their answers best.

Modules: ``simulate`` (pure: templates, the anchor's null, df matching, the simulated
queries), ``probe`` (what is read from the cluster: the sample's tokens and df, each
template's anchor, a pool of target documents), ``measure`` (the sweep and the choice, with
progress).
"""

from qidf_ctl.measured.measure import GRID, MeasuredQ, measure_q

__all__ = ["GRID", "MeasuredQ", "measure_q"]
