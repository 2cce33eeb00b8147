"""Truco Arena: a tournament and bot arena for truco."""

__version__ = "0.1.0"
