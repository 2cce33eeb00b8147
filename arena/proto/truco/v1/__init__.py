"""Generated from proto/truco/v1 (do not edit)."""
