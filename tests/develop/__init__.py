"""Tests of the Home Assistant that script/develop starts."""
