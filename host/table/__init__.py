"""A table and what it owns: its state, seating and deal cycle, its task, fan-out and clocks,
and the host bots that play its seats."""
