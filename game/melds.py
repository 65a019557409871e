"""Declared sets (melds): chows, pungs and kongs laid on the table."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from game.notation import format_tiles
from game.tiles import Tile

__all__ = ["Meld", "MeldKind"]


class MeldKind(StrEnum):
    """Kinds of set (R7.1)."""

    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"


@dataclass(frozen=True, slots=True)
class Meld:
    """A set on the table. ``concealed`` is true only for a declared concealed kong (R5.2b, scored
    concealed); ``claimed`` is the discard taken to make it and ``source`` the seat that discarded it;
    ``added`` marks a kong made by adding a tile to an exposed pung (R5.2c).
    """

    kind: MeldKind
    tiles: tuple[Tile, ...]
    concealed: bool = False
    claimed: Tile | None = None
    source: int | None = None
    added: bool = False

    @property
    def exposed(self) -> bool:
        """Exposed for scoring (R8.2): every meld but a concealed kong."""
        return not self.concealed

    @property
    def tile(self) -> Tile:
        """The lowest tile (the tile of a pung or kong)."""
        return self.tiles[0]

    def to_json(self) -> dict[str, object]:
        """Plain JSON, e.g. ``{"kind": "pung", "tiles": "555b", "exposed": true, …}``."""
        out: dict[str, object] = {"kind": self.kind.value, "tiles": format_tiles(self.tiles), "exposed": self.exposed}
        if self.claimed is not None:
            out["claimed"] = self.claimed.code
            out["from"] = self.source
        if self.added:
            out["added"] = True
        return out
