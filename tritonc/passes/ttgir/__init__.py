"""Passes from TTIR to TTGIR: every tensor gets a layout encoding."""
