"""Tests of what Home Assistant, HACS and a release read: manifest, brand, versions."""
