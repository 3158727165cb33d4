"""Hosts of the engine outside Home Assistant: the memory server and the CLI."""
