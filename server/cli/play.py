"""``sparrow play``: one deal of self-play, narrated face up (the demo behind ``make run``)."""

from __future__ import annotations

import argparse

from game import Event, Game
from server.cli.selfplay import play_deals

__all__ = ["register", "narrate"]

_WINDS = "ESWN"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``play`` sub-command."""
    p = sub.add_parser("play", help="play one deal by the built-in policy and narrate it face up")
    p.add_argument("--seed", default="1", metavar="S", help="seed of the deal (default 1)")
    p.set_defaults(func=run)


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
    """Play one deal and print it."""

    def show(game: Game, event: Event) -> None:
        line = narrate(game, event)
        if line is not None:
            print(line)

    for _ in play_deals(1, args.seed, on_event=show):
        pass
    return 0
