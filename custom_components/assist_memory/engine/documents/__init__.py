"""Documents: MEMORY.md beside the store, its edits, and the daily logs."""
