"""A seat's side of a table, for every kind of seat: its link (``link``: gRPC or inside the host),
the resumable stream (``stream``), the refusal (``refusal``), the fair-deal steps
(``fairdeal``), and the network bot, ``scala40-bot`` (``netbot``)."""
