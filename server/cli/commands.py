"""The ``sparrow`` sub-commands: each one's name, the module that implements it, and its one-line summary.

``sparrow --help`` and the refusal of an unknown command are made from this table alone; a command's module
(and everything it imports: the rules engine, the database, the web server) is loaded only when that command
runs, so each command pays for its own imports and no other's.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "summary"]

COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("analyze", "server.cli.analyze", "waits and shanten of hands; the one-suit census (R15.4)"),
    ("score", "server.cli.score", "score one hand and explain it (R8–R10)"),
    ("settle", "server.cli.score", "the payments of one deal (R11, R14)"),
    ("simulate", "server.cli.simulate", "play N deals by the built-in policy and report how they ended"),
    ("arena", "server.cli.arena", "four bots play walls in duplicate; win, deal-in and score figures per bot"),
    ("play", "server.cli.play", "play one deal by the built-in policy and narrate it face up"),
    (
        "review",
        "server.cli.review",
        "one seat's decisions beside what the strong bot would have done, with the reasons",
    ),
    ("serve", "server.cli.serve", "run the Sparrow server"),
    ("db", "server.cli.db", "database migrations, backups and restores"),
    ("admin", "server.cli.admin", "make an admin invitation link"),
    ("export", "server.cli.history", "write a stored game as an event log"),
    ("import", "server.cli.history", "replay an event log and store it"),
    (
        "loadtest",
        "server.cli.loadtest",
        "play many live tables over WebSockets against a running server and measure it",
    ),
)
"""(command, module, summary) in the order ``sparrow --help`` lists them; a module's commands are adjacent."""

_SUMMARIES = {name: text for name, _, text in COMMANDS}


def summary(command: str) -> str:
    """The one-line summary of ``command`` (its ``help`` in ``sparrow --help``)."""
    return _SUMMARIES[command]
