"""The conformance kit: a host with a scripted table that checks a client against the protocol
(``scala40-conformance``)."""
