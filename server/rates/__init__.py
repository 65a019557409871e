"""Limits per visitor (docs/protocol.md, "Limits"): sockets, handshakes, HTTP requests and attempts,
counted with the `limits` library in this process's memory, or in Redis when several processes serve
one club, so that every process counts the same."""
