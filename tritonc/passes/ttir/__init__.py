"""Passes on TTIR, before it gets layouts."""
