"""The async API every host uses (`MemoryBackend`), in this process."""
