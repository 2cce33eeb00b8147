"""Generated protobuf and gRPC code, mirroring ``proto/``. Do not edit: ``make proto``."""
