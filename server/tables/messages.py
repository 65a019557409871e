"""What arrives in a table's inbox. Requests from the lobby carry a future for the answer;
socket intents carry the connection and the client's request id; timer firings carry the window
token they were armed for, so a late firing for a closed window does nothing (lesson 7).
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field

from server.tables.connection import Connection

__all__ = [
    "Act",
    "AddBots",
    "Attach",
    "BotMove",
    "Chat",
    "Deadline",
    "Detach",
    "GraceOver",
    "HandOver",
    "Join",
    "Leave",
    "Message",
    "Remove",
    "Rematch",
    "RematchMade",
    "Adjourn",
    "AdjournNow",
    "Deserted",
    "PauseOver",
    "PutAway",
    "Reload",
    "Resync",
    "Start",
    "Stop",
    "request_from_wire",
    "request_to_wire",
]


def _future() -> asyncio.Future[object]:
    return asyncio.get_running_loop().create_future()


@dataclass(frozen=True, slots=True)
class Join:
    """A person asks for a seat (``seat`` None: the first free one); ``member``: a logged-in member's id,
    whose seat it becomes (``name`` is then their member name)."""

    name: str
    seat: int | None = None
    member: int | None = None
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class Leave:
    """A seated person gives the seat back before the game starts."""

    token: str | None
    member: int | None = None
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class AddBots:
    """The owner fills every empty seat with a bot of ``level`` (None: the default level)."""

    token: str | None
    member: int | None = None
    level: object = None
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class Remove:
    """The owner (or, with ``admin``, a club admin) frees seat ``seat`` (a bot, or a person) before the
    game starts."""

    token: str | None
    seat: object
    member: int | None = None
    admin: bool = False
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class Start:
    """The owner starts the game once four are seated."""

    token: str | None
    member: int | None = None
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class Rematch:
    """The owner asks to play again with the same seats, once the game is over."""

    token: str | None
    member: int | None = None
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class AdjournNow:
    """A club admin adjourns a game being played: clocks stop and sockets close; it resumes when
    someone opens it again."""

    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class PutAway:
    """The lobby lets an adjourned table nobody is at leave memory: the table, if it still is one,
    makes sure its journal says so and closes (answer: True), or stays (False). With ``paused``, a game
    paused because nobody is at it is adjourned first (the lobby makes room so when it is full)."""

    paused: bool = False
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class RematchMade:
    """The lobby opened the rematch table ``table`` (None: it could not)."""

    table: str | None


@dataclass(frozen=True, slots=True)
class Attach:
    """A socket authenticated with a seat token, or a logged-in member's socket (the member's seat, if
    they have one here), or neither (a spectator) joins the table."""

    conn: Connection
    token: str | None
    member: int | None = None
    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class Detach:
    """A socket closed."""

    conn: Connection


@dataclass(frozen=True, slots=True)
class Act:
    """A seat's intent: an engine action for the decision ``window`` it was offered in."""

    conn: Connection
    request: int
    action: object
    window: object


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat line from a connection."""

    conn: Connection
    request: int
    text: object


@dataclass(frozen=True, slots=True)
class Resync:
    """A connection saw a gap and asks for a snapshot."""

    conn: Connection


@dataclass(frozen=True, slots=True)
class Deadline:
    """The turn, claim or ready deadline of ``window`` has passed (``attempt``: retries after failed writes)."""

    window: int
    attempt: int = 0


@dataclass(frozen=True, slots=True)
class BotMove:
    """A bot's thinking time in ``window`` is over: it acts for ``seat`` (``attempt``: retries after failed writes)."""

    window: int
    seat: int
    attempt: int = 0


@dataclass(frozen=True, slots=True)
class PauseOver:
    """The fair pause of claim window ``window`` is over (R6.9): bots answer, seats with only pass pass."""

    window: int
    attempt: int = 0


@dataclass(frozen=True, slots=True)
class Deserted:
    """Nobody (seated or watching) has been connected since ``since``, for the grace period: the table pauses."""

    since: float


@dataclass(frozen=True, slots=True)
class Adjourn:
    """The table, paused since ``since``, has been paused long enough to be adjourned (``attempt``: how
    many times storing that failed before)."""

    since: float
    attempt: int = 0


@dataclass(frozen=True, slots=True)
class GraceOver:
    """The grace period of ``seat``, away since ``since``, has ended: a bot takes over."""

    seat: int
    since: float


@dataclass(frozen=True, slots=True)
class Reload:
    """Read the table back from its journal, which could not be read when the table last had to be
    rebuilt (``attempt``: how many reads failed before)."""

    attempt: int = 0


@dataclass(frozen=True, slots=True)
class HandOver:
    """The table moves to another server process (server/cluster/handover.py): once everything before
    this in the inbox is handled (and stored), it stops here, writing nothing more and leaving its
    sockets open, and answers with what its journal does not hold and its sockets
    (`server.tables.handover.Handover._hand_over`)."""

    reply: asyncio.Future[object] = field(default_factory=_future)


@dataclass(frozen=True, slots=True)
class Stop:
    """Close the table: cancel timers, close sockets with ``code``, end the task."""

    code: int = 1001


Message = (
    Join
    | Leave
    | AddBots
    | Remove
    | Start
    | Rematch
    | AdjournNow
    | PutAway
    | RematchMade
    | Attach
    | Detach
    | Act
    | Chat
    | Resync
    | Deadline
    | BotMove
    | PauseOver
    | GraceOver
    | Deserted
    | Adjourn
    | Reload
    | HandOver
    | Stop
)


# The requests a table may be asked from another server process (server/cluster), by name.
_REQUESTS: dict[str, type[Join | Leave | AddBots | Remove | Start | AdjournNow]] = {
    cls.__name__: cls for cls in (Join, Leave, AddBots, Remove, Start, AdjournNow)
}


def request_to_wire(msg: Join | Leave | AddBots | Remove | Start | AdjournNow) -> dict[str, object]:
    """``msg`` as JSON: its kind and its fields but the reply (for `request_from_wire`)."""
    fields = {f.name: getattr(msg, f.name) for f in dataclasses.fields(msg) if f.name != "reply"}
    return {"kind": type(msg).__name__, "fields": fields}


def request_from_wire(data: object) -> Join | Leave | AddBots | Remove | Start | AdjournNow:
    """The request `request_to_wire` made ``data`` of, with a new reply.

    :raises ValueError: when ``data`` is not one.
    """
    if not isinstance(data, dict) or not isinstance(data.get("fields"), dict):
        raise ValueError(f"not a table request: {data!r}"[:200])
    cls = _REQUESTS.get(data.get("kind"))  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"not a table request: {data.get('kind')!r}"[:200])
    return cls(**data["fields"])
