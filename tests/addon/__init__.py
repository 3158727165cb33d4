"""Tests of the Home Assistant add-on folder."""
