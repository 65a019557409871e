"""A batch of actions written to PostgreSQL in ONE statement, fence check included: one round trip.

A move is acknowledged only once its row is committed (lesson 11), so every round trip to the
database is in each move's latency; with a distant database (a managed one, another zone) it is
most of it. Written as separate statements (read the lease rows, insert the actions,
the hands, set the seats' totals and the games' rows) in a transaction (BEGIN … COMMIT), a move cost
six round trips. Here one statement does it all, autocommitted, so its answer comes once it is
committed:

- ``fence`` reads the lease rows of the fenced tables whose token is the one their writes carry,
  `FOR KEY SHARE`: a takeover (which locks the row `FOR UPDATE` before raising the token) waits
  until this statement has committed, so it never misses a write this one makes, while a renewal
  (an update of the expiry alone) does not wait; and a token that a takeover has just raised no
  longer matches, so that table is missing from ``fence``.
- Every other part writes only if ``fence`` holds every fenced table (``ok``); else nothing is
  written and the statement answers which tables it found, so the caller refuses the batch
  (`StaleOwner`) exactly as the separate statements did.
- The rows cross as one array per column (``unnest``), so the statement's text is the same for
  every batch: it is prepared once per connection, and each batch is then one round trip.

The JSON columns are bound as their text, as SQLAlchemy would write them (the columns' own bind
processors), and cast to ``json`` in the statement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Table
from sqlalchemy.engine import Connection

from server.store.models import ActionRow, GameRow, HandRow

__all__ = ["write_records"]

_ACTIONS = ("game_id", "seq", "seat", "action", "events", "auto", "at")
_HANDS = (
    "game_id",
    "number",
    "round_wind",
    "dealer",
    "winner",
    "termination",
    "win_by",
    "discarder",
    "value",
    "result",
    "changes",
    "totals",
    "finished_at",
)
_ACTION_TYPES = ("text", "int", "int", "text", "text", "text", "timestamptz")
_HAND_TYPES = ("text", "int", "text", "int", "int", "text", "text", "int", "int", "text", "text", "text", "timestamptz")
_JSON = {"action", "events", "result", "changes", "totals"}


def _columns(names: tuple[str, ...], types: tuple[str, ...], first: int) -> tuple[str, str]:
    """``unnest($n::type[], …) AS x(names)`` and its SELECT list, the JSON ones cast back."""
    arrays = ", ".join(f"${first + i}::{kind}[]" for i, kind in enumerate(types))
    picks = ", ".join(f"x.{name}::json" if name in _JSON else f"x.{name}" for name in names)
    return f"unnest({arrays}) AS x({', '.join(names)})", picks


def _statement() -> str:
    actions, action_picks = _columns(_ACTIONS, _ACTION_TYPES, 3)
    hands, hand_picks = _columns(_HANDS, _HAND_TYPES, 3 + len(_ACTIONS))
    n = 3 + len(_ACTIONS) + len(_HANDS)
    return f"""
WITH fence AS MATERIALIZED (
    SELECT l.table_id FROM table_leases l
    JOIN unnest($1::text[], $2::bigint[]) AS f(table_id, token) ON l.table_id = f.table_id AND l.token = f.token
    FOR KEY SHARE OF l
), ok AS MATERIALIZED (
    SELECT count(*) = cardinality($1::text[]) AS ok FROM fence
), acts AS (
    INSERT INTO actions ({", ".join(_ACTIONS)}) SELECT {action_picks} FROM {actions} WHERE (SELECT ok FROM ok)
), hands AS (
    INSERT INTO hands ({", ".join(_HANDS)}) SELECT {hand_picks} FROM {hands} WHERE (SELECT ok FROM ok)
), totals AS (
    UPDATE seats s SET score = t.score
    FROM unnest(${n}::text[], ${n + 1}::int[], ${n + 2}::int[]) AS t(game_id, seat, score)
    WHERE s.game_id = t.game_id AND s.seat = t.seat AND (SELECT ok FROM ok)
), games AS (
    UPDATE games g SET version = v.version, hands = coalesce(v.hands, g.hands),
        scores = CASE WHEN v.set_scores THEN v.scores::json ELSE g.scores END,
        status = coalesce(v.status, g.status), finished_at = coalesce(v.finished_at, g.finished_at)
    FROM unnest(${n + 3}::text[], ${n + 4}::int[], ${n + 5}::int[], ${n + 6}::bool[], ${n + 7}::text[],
        ${n + 8}::text[], ${n + 9}::timestamptz[]) AS v(id, version, hands, set_scores, scores, status, finished_at)
    WHERE g.id = v.id AND (SELECT ok FROM ok)
)
SELECT table_id FROM fence"""


STATEMENT = _statement()


def write_records(
    connection: Connection,
    fences: dict[str, int],
    actions: list[dict[str, Any]],
    hands: list[dict[str, Any]],
    totals: dict[tuple[str, int], int],
    games: dict[str, dict[str, Any]],
) -> set[str]:
    """Write the rows in one statement, if each of ``fences``'s tables still has the lease token given;
    the tables of ``fences`` whose token is still theirs (all of them: the rows were written).
    """
    dialect = connection.dialect
    params: list[Any] = [list(fences), list(fences.values())]
    params += _arrays(ActionRow.__table__, _ACTIONS, actions, dialect)  # type: ignore[arg-type]
    params += _arrays(HandRow.__table__, _HANDS, hands, dialect)  # type: ignore[arg-type]
    params += [[table for table, _ in totals], [seat for _, seat in totals], list(totals.values())]
    scores = _processor(GameRow.__table__, "scores", dialect)  # type: ignore[arg-type]
    rows = list(games.items())
    params += [
        [table for table, _ in rows],
        [values["version"] for _, values in rows],
        [values.get("hands") for _, values in rows],
        ["scores" in values for _, values in rows],
        [_json(scores, values["scores"]) if "scores" in values else None for _, values in rows],
        [values.get("status") for _, values in rows],
        [values.get("finished_at") for _, values in rows],
    ]
    found = connection.exec_driver_sql(STATEMENT, tuple(params))
    return {table for (table,) in found}


def _processor(table: Table, key: str, dialect: Any) -> Callable[[Any], Any] | None:
    return table.c[key].type.dialect_impl(dialect).bind_processor(dialect)


def _json(process: Callable[[Any], Any] | None, value: object) -> object:
    return value if process is None else process(value)


def _arrays(table: Table, names: tuple[str, ...], rows: list[dict[str, Any]], dialect: Any) -> list[list[Any]]:
    """One list per column of ``names``: the rows' values, JSON ones as their text."""
    arrays = []
    for name in names:
        process = _processor(table, name, dialect) if name in _JSON else None
        arrays.append([_json(process, row[name]) for row in rows])
    return arrays
