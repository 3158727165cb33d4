"""Search: the FTS5 index, the scoring formula, retrieval and optional vectors."""
