"""Settlement (R11, R14): who pays whom once a deal is scored. The changes always sum to zero."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from game.rules import Rules

__all__ = ["Payment", "Settlement", "settle"]


@dataclass(frozen=True, slots=True)
class Payment:
    """``payer`` pays ``payee`` ``amount`` points, for the reason given."""

    payer: int
    payee: int
    amount: int
    rule: str
    text: str

    def to_json(self) -> dict[str, object]:
        """Plain JSON."""
        return {"from": self.payer, "to": self.payee, "amount": self.amount, "rule": self.rule, "text": self.text}


@dataclass(frozen=True, slots=True)
class Settlement:
    """The four score changes and the payments that make them up."""

    changes: tuple[int, int, int, int]
    payments: tuple[Payment, ...]

    def to_json(self) -> dict[str, object]:
        """Plain JSON."""
        return {"changes": list(self.changes), "payments": [p.to_json() for p in self.payments]}


def _east(times: int, *seats: int, dealer: int) -> tuple[int, str]:
    """Multiplier and note for a payment to or from East, which is doubled (R11.1)."""
    if dealer in seats:
        return times * 2, " (East pays or receives double)"
    return times, ""


def _winner_payments(
    rules: Rules, winner: int, dealer: int, discarder: int | None, value: int
) -> list[tuple[int, int, str, str]]:
    """(payer, amount, rule, text) for what the losers owe the winner."""
    losers = [s for s in range(4) if s != winner]
    owed: list[tuple[int, int, str, str]] = []
    if rules.payment == "discarder" and discarder is not None:
        times = 6 if winner == dealer else 4  # R14: the discarder alone pays
        owed.append((discarder, value * times, "R14", f"discarder pays {times} × {value}"))
        return owed
    for loser in losers:
        times, note = _east(1, loser, winner, dealer=dealer)
        rule = "R14" if rules.payment == "discarder" else "R11.1"
        owed.append((loser, value * times, rule, f"pays the winner {times} × {value}{note}"))
    return owed


def settle(
    rules: Rules,
    winner: int | None,
    dealer: int,
    discarder: int | None,
    values: Sequence[int],
    pao: int | None = None,
    dangerous: int | None = None,
) -> Settlement:
    """Settle a deal. ``values[winner]`` is the winner's hand value, the others the losers' own hand
    values (used only when ``losers_settle`` is on). ``pao`` names the seat that pays alone (R11.3),
    ``dangerous`` the seat whose dangerous discard the winner took (R11.6, with ``dangerous_game``).

    >>> settle(Rules(losers_settle=False), 1, 0, 2, [0, 30, 0, 0]).changes  # R15.3
    (-60, 120, -30, -30)

    :raises ValueError: on seats outside 0–3, a discarder who is the winner, or negative values.
    """
    seats = [s for s in (winner, dealer, discarder, pao, dangerous) if s is not None]
    if any(not 0 <= s <= 3 for s in seats) or len(values) != 4:
        raise ValueError("seats are 0–3 and there are four values")
    if any(v < 0 for v in values):
        raise ValueError("hand values are never negative")
    if winner is None:  # R11.4: a wash-out pays nothing
        return Settlement((0, 0, 0, 0), ())
    if discarder == winner or pao == winner or dangerous == winner:
        raise ValueError("the winner cannot be the discarder, the pao seat or the dangerous discarder")
    changes = [0, 0, 0, 0]
    payments: list[Payment] = []

    def pay(payer: int, payee: int, amount: int, rule: str, text: str) -> None:
        if amount:
            changes[payer] -= amount
            changes[payee] += amount
            payments.append(Payment(payer, payee, amount, rule, text))

    owed = _winner_payments(rules, winner, dealer, discarder, values[winner])
    if pao is not None and rules.pao:
        total = sum(amount for _, amount, _, _ in owed)
        pay(pao, winner, total, "R11.3", f"pao: pays alone for all three losers ({total})")
    elif dangerous is not None and rules.dangerous_game:
        total = sum(amount for _, amount, _, _ in owed)
        pay(dangerous, winner, total, "R11.6", f"Dangerous Game: pays alone for all three losers ({total})")
    else:
        for payer, amount, rule, text in owed:
            pay(payer, winner, amount, rule, text)
    if rules.losers_settle:  # R11.2: each pair of losers settles the difference
        losers = [s for s in range(4) if s != winner]
        for i, a in enumerate(losers):
            for b in losers[i + 1 :]:
                diff = values[a] - values[b]
                if diff == 0:
                    continue
                high, low = (a, b) if diff > 0 else (b, a)
                times, note = _east(1, a, b, dealer=dealer)
                pay(low, high, abs(diff) * times, "R11.2", f"losers settle: {values[high]} − {values[low]}{note}")
    return Settlement((changes[0], changes[1], changes[2], changes[3]), tuple(payments))
