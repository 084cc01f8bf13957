"""The benchmark's languages and their roles, defined once for every script."""

from __future__ import annotations

TRAIN = ("go", "java", "ruby")  # the paper's training split
TEST = ("python", "php", "javascript")  # the paper's test split
PAPER = TRAIN + TEST  # the paper's six
# Beyond the paper (sources/<name>.py), measured the same way: out-of-sample tests of a
# predictor fitted on the paper's six, and extra folds after.
EXTRA = ("rust", "typescript", "kotlin")
# Measured after the default predictor was fitted: its held-out check.
HELDOUT = ("scala", "c")
ALL = PAPER + EXTRA + HELDOUT
