"""``sparrow review LOG.jsonl|GAME_ID``: one seat's decisions beside what the strong bot would have done."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from game.actions import Action, ActionType
from game.review import Decision, GameReview, HandReview
from game.tiles import Tile
from server.cli.commands import summary
from server.history.logfile import GameLog

__all__ = ["register"]

_SHOWN = 4  # candidates shown under a decision worth a closer look


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``review`` sub-command."""
    p = sub.add_parser(
        "review",
        help=summary("review"),
        description="Replay a game's log (docs/log-format.md) or a stored game and show, at each decision "
        "of one seat, what it did and what the strong bot would have done from that seat's own view: the "
        "candidates ranked with their reasons, marks where it mattered, and the seat's agreement with the bot.",
    )
    p.add_argument(
        "source", metavar="LOG.jsonl|GAME_ID", help="a log file ('-' for standard input) or a stored game's id"
    )
    p.add_argument(
        "--seat", type=_seat, default=None, metavar="N", help="the seat to review, 0–3 (default: the first person's)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--all", action="store_true", help="explain every decision, not only disagreements and marks")
    p.add_argument(
        "--db", default=None, help="database URL for a GAME_ID (default: $SPARROW_DB, else ./data/sparrow.db)"
    )
    p.set_defaults(func=run)


def _seat(text: str) -> int:
    if text not in ("0", "1", "2", "3"):
        raise argparse.ArgumentTypeError(f"a seat is 0, 1, 2 or 3, not {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    """Review the game and print it; status 1 if it cannot be read."""
    from game.errors import RulesError
    from server.history.logfile import LogError
    from server.history.review import default_seat, review_log

    try:
        log = _load(args.source, args.db)
    except LogError as exc:
        print(f"sparrow review: cannot read {args.source}: {exc}", file=sys.stderr)
        return 1
    except LookupError as exc:
        print(f"sparrow review: {exc.args[0]}", file=sys.stderr)
        return 1
    seat = default_seat(log) if args.seat is None else args.seat
    try:
        seen = review_log(log, seat)
    except RulesError as exc:
        print(f"sparrow review: the stored actions do not replay: {exc}", file=sys.stderr)
        return 1
    if args.json:
        doc = {"game": log.id, "name": log.name, "player": log.seats[seat]["name"], **seen.to_json()}
        print(json.dumps(doc, ensure_ascii=False))
    else:
        _print(log, seen, everything=args.all)
    return 0


def _load(source: str, url: str | None) -> GameLog:
    """The log from a file, standard input, or the database.

    :raises LogError: if the file is not a log that replays.
    :raises LookupError: if it is neither a readable file nor a stored game.
    """
    from server.history.logfile import read_log

    path = Path(source)
    if source == "-":
        return read_log(sys.stdin.read().splitlines())[0]
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LookupError(f"cannot read {source}: {exc}") from None
        return read_log(text.splitlines())[0]
    if "/" in source or source.endswith((".jsonl", ".json")):
        raise LookupError(f"there is no file {source}")
    import asyncio  # (a stored game only: a log file's review need not load it)

    found = asyncio.run(_stored(source, url))
    if found is None:
        raise LookupError(f"{source} is neither a log file nor a game in this database")
    return found


async def _stored(game_id: str, url: str | None) -> GameLog | None:
    from server.store.games import load_log
    from server.store.migrate import upgrade
    from server.store.session import database_url, make_engine, make_sessions

    engine = make_engine(database_url(url))
    try:
        await upgrade(engine)
        async with make_sessions(engine)() as session:
            found = await load_log(session, game_id)
        return None if found is None else found[0]
    finally:
        await engine.dispose()


def _print(log: GameLog, seen: GameReview, *, everything: bool) -> None:
    out = Console(highlight=False)
    who = log.seats[seen.seat]["name"] or f"seat {seen.seat}"
    out.print(f"[bold]{escape(log.name)}[/bold]: seat {seen.seat} ({escape(who)}) beside the strong bot")
    for hand in seen.hands:
        _print_hand(out, hand, everything)
    doc = seen.to_json()
    out.print(
        f"\n[bold]Game[/bold]: {_share(doc)}; deal-ins {doc['deal_ins']}, missed wins {doc['missed_wins']}, "
        f"{sum(1 for d in seen.decisions if d.marks)} decisions marked"
    )


def _print_hand(out: Console, hand: HandReview, everything: bool) -> None:
    doc = hand.to_json()
    out.print(f"\n[bold]Hand {hand.number + 1}[/bold]: {_ending(hand)}")
    table = Table(show_edge=False, pad_edge=False, box=None)
    for name in ("#", "wall", "hand", "did", "strong", ""):
        table.add_column(name)
    for d in hand.decisions:
        table.add_row(
            str(d.seq),
            str(d.wall_live),
            d.concealed + (f" +{d.drawn}" if d.drawn is not None else "") + (f" ({d.offered}?)" if d.offered else ""),
            _say(d.done, d.offered) + ("" if d.made_by is None else f" ({d.made_by})"),
            "=" if d.agreed else _say(d.strong, d.offered),
            " ".join(f"[red]{m.kind.value}[/red]" for m in d.marks),
        )
    out.print(table)
    for d in hand.decisions:
        if everything or not d.agreed or d.marks:
            _explain(out, d)
    out.print(f"  {_share(doc)}; deal-ins {doc['deal_ins']}, missed wins {doc['missed_wins']}")


def _explain(out: Console, d: Decision) -> None:
    out.print(f"  [bold]#{d.seq}[/bold] did {_say(d.done, d.offered)}; strong: {_say(d.strong, d.offered)} ({d.mode})")
    for mark in d.marks:
        out.print(f"    [red]{mark.kind.value}[/red]: {escape(mark.text)}")
    shown = list(d.options[:_SHOWN])
    done = next((o for o in d.options if o.action == d.done), None)
    if done is not None and done not in shown:
        shown.append(done)
    for rank, o in enumerate(shown, start=1):
        place = d.options.index(o) + 1
        tag = " [dim](did)[/dim]" if o.action == d.done else ""
        out.print(f"    {place if place != rank else rank}. {_say(o.action, d.offered)}{tag}: {escape(o.reason)}")


def _share(doc: dict[str, object]) -> str:
    agreement = doc["agreement"]
    made_for = f"; {doc['made_for']} made for it (its clock ran out, or a bot stood in)" if doc["made_for"] else ""
    if not isinstance(agreement, float):
        return "no decision of its own" + made_for
    return f"agreed with strong {doc['agreed']}/{doc['decision_count']} ({agreement:.0%})" + made_for


def _ending(hand: HandReview) -> str:
    r = hand.result
    if r is None:
        return "still being played"
    if r.winner is None:
        return "washed out"
    how = "self-drawn" if r.discarder is None else f"on seat {r.discarder}'s discard"
    return f"seat {r.winner} won with {r.tile}, {how}"


def _say(action: Action, offered: Tile | None) -> str:
    if action.type is ActionType.DISCARD:
        return f"discard {action.tile}"
    if action.type is ActionType.CHOW and action.tiles is not None and offered is not None:
        return "chow " + "".join(str(t)[0] for t in sorted((offered, *action.tiles))) + str(offered)[1]
    if action.type in (ActionType.PUNG, ActionType.KONG) and offered is not None:
        return f"{action.type.value} {offered}"
    if action.type is ActionType.KONG:
        return f"kong {action.tile}"
    return action.type.value
