"""Members' names: what a name may be (the PRECIS nickname profile of RFC 8266, over RFC 8264's
FreeformClass, by `precis-i18n`), and when two names are one to a reader's eye (their `likeness`:
"Аdmin" with a Cyrillic А, "AIice" with a capital I and "Alice" look alike), from Unicode's
confusables (UTS #39) as `confusable-homoglyphs` ships them.

>>> member_name("  Ann   Lee ")
'Ann Lee'
>>> login_key(" \uff21nn  Lee") == login_key("ann lee") == "ann lee"
True
>>> likeness("Аdmin") == likeness("admin") == likeness("ADMIN")
True
>>> likeness("AIice") == likeness("alice")
True
"""

from __future__ import annotations

import functools
import unicodedata

from precis_i18n import get_profile

from server.tables.errors import TableError
from server.tables.settings import NAME_MAX, clean_text

__all__ = ["likeness", "login_key", "member_name"]

_NICKNAME = get_profile("NicknameCasePreserved")


def member_name(value: object, what: str = "your name") -> str:
    """``value`` as a member's name: a nickname by RFC 8266 (spaces trimmed and collapsed, width and
    compatibility forms normalised), of 1 to NAME_MAX characters.

    :raises TableError: ``input/bad_text`` for what no name may be (not text, empty, too long, control
        characters); ``club/bad_name`` for a character a member's name may not hold (an invisible one,
        an unassigned code point, …).
    """
    text = clean_text(value, what, NAME_MAX)
    try:
        name = str(_NICKNAME.enforce(text))
    except UnicodeEncodeError as exc:
        bad = text[exc.start] if 0 <= exc.start < len(text) else "?"
        shown = unicodedata.name(bad, f"U+{ord(bad):04X}")
        raise TableError("club/bad_name", f"{what} may not hold the character {shown}") from None
    return clean_text(name, what, NAME_MAX)


def login_key(value: object) -> str:
    """The key a login finds a member by: ``value`` made a name as sign-up makes it (`member_name`:
    " Ａｌｉｃｅ " is "Alice"), case aside; "" for what no name may be (no member has that key)."""
    try:
        return member_name(value).casefold()
    except TableError:
        return ""


def likeness(name: str) -> str:
    """What ``name`` looks like, case aside: two names with one likeness are one name to a reader."""
    table = _look_alikes()
    return "".join(table.get(c, c) for c in unicodedata.normalize("NFKC", name).casefold())


@functools.cache
def _look_alikes() -> dict[str, str]:
    """Each character that has look-alikes → the one character standing for them all (an ASCII one
    when there is one): the look-alike relation of the confusables data, with each letter's other
    case (a capital I looks like a small l, and is a small i), closed (built once, ~0.1 s)."""
    from confusable_homoglyphs import confusables  # (its data loads on import: half a second, on first need)

    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.get(c, c) != c:
            parent[c] = parent.get(parent[c], parent[c])
            c = parent[c]
        return c

    for char, alikes in confusables.confusables_data.items():
        for alike in alikes:
            other = alike["c"].strip("\u200e\u200f")  # right-to-left ones come wrapped in direction marks
            if len(char) == 1 and len(other) == 1:
                for a, b in ((char, other), (char, char.casefold()), (other, other.casefold())):
                    if len(b) == 1 and root(a) != root(b):
                        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for c in list(parent):
        groups.setdefault(root(c), []).append(c)
    table: dict[str, str] = {}
    for members in groups.values():
        ascii_ = sorted(c for c in members if c.isascii() and c.isalnum()) or sorted(c for c in members if c.isascii())
        stand_in = ascii_[0] if ascii_ else min(members)
        table.update(dict.fromkeys(members, stand_in))
    return table
