"""A seat's side of a table: its link to the host, and the network bot (``scala40-bot``)."""
