"""End to end across many processes: fair play, faults, hosting, attacks, the cluster."""
