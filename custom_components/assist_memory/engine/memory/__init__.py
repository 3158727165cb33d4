"""The memory engine: store, index, retrieval and MEMORY.md in step; compaction; forgetting."""
