"""Tests of the labelled evaluation sets and the retrieval quality guard."""
