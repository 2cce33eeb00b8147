"""Generated from proto/truco (do not edit)."""
