"""Benchmarks of paddle-ir against numpy floors and its peers (see bench/README.md)."""
