"""File localization from real repositories' histories: a commit message (the query) should
retrieve the whole files the commit changed, from an index of the repository's files at a
pinned snapshot (one small module per step; ``bench`` runs them all, ``report`` writes the
tables). The fetched code stays in the research cache; only derived numbers are committed."""
