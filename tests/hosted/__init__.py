"""Hosted bots' tests: archives, their folders, the sandbox, the relay, uploads."""
