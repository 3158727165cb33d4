"""Tests of the memory server (assist-memory serve)."""
