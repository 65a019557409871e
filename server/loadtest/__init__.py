"""The load-test client behind ``sparrow loadtest``: simulated players that open real sockets to a
running server, play its tables as browsers would, and measure it.

- `client`: the lobby API client, the simulated players and their latency figures;
- `cpu`: the CPU, memory and event-loop lag of the server and of the client;
- `driver`: one run, from setting up the tables to the go and the end of play;
- `report`: the figures of a run, as JSON or as a table.
"""
