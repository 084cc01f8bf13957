"""The sample design of ``qidf stats --sample``: the longest documents read in full, a seeded
uniform sample of the rest, and bootstrap intervals on every density.

Why stratified: on code, h_i is extremely heavy-tailed. In 100,000 real functions the ten
largest residuals carry most of the variance of the ratio estimator and the longest 1% of
documents nearly all of it, so a plain uniform sample's bootstrap interval often misses the
truth; reading the longest documents in full removes that variance (numbers:
benchmarks/stats/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qidf_ctl.stats.densities import DENSITIES, DocCounts, from_totals

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
TAKE_ALL_SHARE = 0.2  # of the sample: the longest documents, read in full


@dataclass
class Stratified:
    """The longest documents read in full, plus a uniform sample of the rest.

    ``rest_size`` is how many documents the sample was drawn from (without replacement);
    each sampled document stands for rest_size / len(sample) of them.
    """

    take_all: DocCounts
    sample: DocCounts
    rest_size: int

    @property
    def weight(self) -> float:
        return self.rest_size / len(self.sample) if len(self.sample) else 0.0

    def totals(self) -> np.ndarray:
        """Estimated population totals of the six columns."""
        return self.take_all.columns().sum(axis=0) + self.weight * self.sample.columns().sum(
            axis=0)

    def densities(self) -> dict[str, float]:
        return {k: float(v) for k, v in from_totals(self.totals()).items()}

    def intervals(
        self, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES,
        confidence: float = CONFIDENCE,
    ) -> dict[str, tuple[float, float]]:
        """Percentile bootstrap over the sampled documents (the take-all stratum is fixed),
        narrowed by the finite-population correction sqrt(1 - n/N): zero width when the
        sample is the whole rest."""
        point = self.densities()
        n = len(self.sample)
        if n == 0:
            return {k: (v, v) for k, v in point.items()}
        cols = self.sample.columns()
        base = self.take_all.columns().sum(axis=0)
        rng = np.random.default_rng(seed)
        draws: dict[str, list[np.ndarray]] = {name: [] for name in DENSITIES}
        chunk = max(1, min(resamples, 4_000_000 // n))
        done = 0
        while done < resamples:
            k = min(chunk, resamples - done)
            picks = rng.integers(0, n, size=(k, n)) + (np.arange(k) * n)[:, None]
            weights = np.bincount(picks.ravel(), minlength=k * n).reshape(k, n)
            for name, values in from_totals(base + self.weight * (weights @ cols)).items():
                draws[name].append(values)
            done += k
        fpc = np.sqrt(max(0.0, 1.0 - n / self.rest_size)) if self.rest_size else 0.0
        alpha = (1.0 - confidence) / 2
        out: dict[str, tuple[float, float]] = {}
        for name, parts in draws.items():
            lo, hi = np.nanquantile(np.concatenate(parts), [alpha, 1 - alpha])
            est = point[name]
            out[name] = (float(est - (est - lo) * fpc), float(est + (hi - est) * fpc))
        return out


def take_all_size(n: int) -> int:
    return int(n * TAKE_ALL_SHARE)


def draw(population: DocCounts, sizes: np.ndarray, n: int, seed: int) -> Stratified:
    """The design ``stats`` uses on a cluster, drawn from known per-document counts: the
    ``take_all_size(n)`` largest by ``sizes``, then a seeded uniform sample of the rest.
    For simulations and the calibration test; the cluster version ranks by source length."""
    order = np.argsort(-np.asarray(sizes), kind="stable")
    k = take_all_size(n)
    rest = order[k:]
    rng = np.random.default_rng(seed)
    picked = rng.choice(rest, size=min(n - k, len(rest)), replace=False)
    return Stratified(population.take(order[:k]), population.take(picked), len(rest))
