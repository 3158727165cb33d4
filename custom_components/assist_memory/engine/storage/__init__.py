"""Storage: the memory record, the store's files (snapshot, journal) and crash-safe file primitives."""
