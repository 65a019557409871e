"""``sparrow play``: one deal of self-play, narrated face up (the demo behind ``make run``); with
``--bots`` the seats are played by the named bots, and ``--log FILE`` writes the game's log
(docs/log-format.md), which ``sparrow review`` and ``sparrow import`` read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from game import Event, Game, GamePhase, Rules
from game.arena import check_bots
from game.bots import make_bot
from game.seatview import SeatView, SeatViewCache
from server.cli.arguments import whole_number
from server.cli.commands import summary
from server.cli.selfplay import play_deals

__all__ = ["register", "narrate"]

_WINDS = "ESWN"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``play`` sub-command."""
    p = sub.add_parser("play", help=summary("play"))
    p.add_argument("--seed", default="1", metavar="S", help="seed of the deal (default 1)")
    p.add_argument(
        "--bots", type=_bot_names, default=None, metavar="A,B,C,D", help="the bot playing each seat (default: normal)"
    )
    p.add_argument("--deals", type=whole_number(1), default=1, metavar="N", help="deals to play (default 1)")
    p.add_argument("--game", action="store_true", help="play the whole game (every round), not --deals deals")
    p.add_argument("--log", default=None, metavar="FILE", help="write the game's log to FILE ('-': standard output)")
    p.add_argument("--quiet", action="store_true", help="narrate nothing")
    p.set_defaults(func=run)


def _bot_names(text: str) -> tuple[str, str, str, str]:
    try:
        return check_bots([name.strip() for name in text.split(",")])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("the arena needs", "play needs")) from None


def _who(game: Game, seat: object) -> str:
    assert isinstance(seat, int)
    return f"seat {seat} ({_WINDS[(seat - game.deal.dealer) % 4]})"


def narrate(game: Game, e: Event) -> str | None:
    """One readable line for an event, or None for events not worth a line."""
    kind = e["type"]
    if kind == "deal_start":
        return f"deal {e['deal']}: prevailing wind {e['round_wind']}, seat {e['dealer']} deals"
    if kind == "dealt":
        return f"  {_who(game, e['seat'])} is dealt {e['tiles']}"
    if kind == "draw":
        return f"  {_who(game, e['seat'])} draws {e['tile']}" + (" (loose tile)" if e["source"] == "loose" else "")
    if kind == "bonus":
        return f"  {_who(game, e['seat'])} lays out bonus tile {e['tile']}"
    if kind == "discard":
        return f"  {_who(game, e['seat'])} discards {e['tile']}"
    if kind == "claim":
        action = e["action"]
        assert isinstance(action, dict)
        return f"  {_who(game, e['seat'])} claims {e['tile']} for a {action['type']}"
    if kind in ("kong", "add_kong"):
        what = "adds to a pung for a kong of" if kind == "add_kong" else f"declares a {e['kind']} kong of"
        return f"  {_who(game, e['seat'])} {what} {e['tile']}"
    if kind == "deal_end":
        lines = []
        if e["termination"] == "wash_out":
            lines.append(f"wash-out: {e['reason']}")
        else:
            how = {
                "wall": "self-drawn",
                "loose": "on a loose tile",
                "discard": f"on seat {e['discarder']}'s discard",
                "robbed_kong": f"robbing seat {e['discarder']}'s kong",
            }[str(e["win_by"])]
            lines.append(f"{_who(game, e['winner'])} wins with {e['tile']}, {how}")
        scores = e.get("scores")
        winner = e["winner"]
        if isinstance(scores, list) and isinstance(winner, int):
            won = scores[winner]
            lines.append(f"  score: {won['arithmetic']}")
            for item in won["items"]:
                amount = (
                    f"{item['doubles']} double(s)" if "doubles" in item else f"{item.get('points', item.get('limit'))}"
                )
                lines.append(f"    {item['rule']:<6} {item['text']}: {amount}")
        changes = e.get("changes")
        if isinstance(changes, list):
            lines.append("  payments: " + ", ".join(f"seat {s} {c:+d}" for s, c in enumerate(changes)))
        hands = e["hands"]
        assert isinstance(hands, list)
        for seat, hand in enumerate(hands):
            melds = " ".join(("[" + m["tiles"] + "]") for m in hand["melds"])
            bonus = " ".join(hand["bonus"])
            lines.append(f"  {_who(game, seat)}: {hand['concealed']} {melds} {bonus}".rstrip())
        return "\n".join(lines)
    return None


def run(args: argparse.Namespace) -> int:
    """Play the deals and print them; status 2 on a seed a log cannot hold."""
    if args.bots is None and args.log is None and not args.game and args.deals == 1:
        return _demo(args)
    try:
        seed = int(args.seed)
    except ValueError:
        print(f"sparrow play: a logged game's seed is a whole number, not {args.seed!r}", file=sys.stderr)
        return 2
    names = args.bots or ("normal",) * 4
    narrate_to = sys.stderr if args.log == "-" else sys.stdout
    game = Game(Rules(), seed)
    bots = [make_bot(name, f"{seed}/{s}") for s, name in enumerate(names)]
    cache = SeatViewCache()
    events = game.opening_events
    while True:
        if not args.quiet:
            for event in events:
                line = narrate(game, event)
                if line is not None:
                    print(line, file=narrate_to)
        if game.phase is GamePhase.OVER or (
            not args.game and game.phase is not GamePhase.DEAL and len(game.results) >= args.deals
        ):
            break
        seat = game.to_act()[0]
        events = game.apply(seat, bots[seat].decide(SeatView.of(game, seat, cache)))
    if args.log is not None:
        _write_log(game, names, seed, args.log)
    return 0


def _write_log(game: Game, names: tuple[str, ...], seed: int, path: str) -> None:
    from server.history.logfile import GameLog, LoggedAction, write_log

    seats = [{"name": name, "bot": True} for name in names]
    actions = [LoggedAction(seat, dict(action), "bot") for seat, action in game.log]
    log = GameLog(f"sparrow play --seed {seed}", "classical", {}, game.rules, seed, seats, actions)
    text = "\n".join(write_log(log)) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        Path(path).write_text(text, encoding="utf-8")
        print(f"wrote the log of {len(game.results)} deal(s), {game.version} actions, to {path}", file=sys.stderr)


def _demo(args: argparse.Namespace) -> int:
    """Play one deal by the built-in policy and print it."""

    def show(game: Game, event: Event) -> None:
        line = narrate(game, event)
        if line is not None:
            print(line)

    for _ in play_deals(1, args.seed, on_event=show):
        pass
    return 0
