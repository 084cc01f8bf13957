"""Fetching the benchmark's pinned sources (Debian, npm, Maven, crates, Go modules) and
building each corpus from them, once, into the research cache."""
