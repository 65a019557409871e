"""docs/protocol.md names every refusal code and close code the server can send, so a client writer
never meets one the documentation does not explain."""

from __future__ import annotations

import re
from pathlib import Path

from game.errors import Reason

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
AREAS = "message|rate|auth|club|table|seat|window|chat|input|server|game|hand|player|history|action"
CODE = re.compile(rf"""["']((?:{AREAS})/[a-z_]+)["']""")


def _server_sources() -> str:
    return "\n".join(p.read_text() for p in sorted((ROOT / "server").rglob("*.py")))


def test_every_refusal_code_in_the_server_is_documented() -> None:
    codes = set(CODE.findall(_server_sources())) | {r.value for r in Reason}
    assert len(codes) > 60  # the scan finds them (it would pass vacuously if the pattern broke)
    missing = sorted(c for c in codes if f"`{c}`" not in DOC)
    assert not missing, f"refusal codes missing from docs/protocol.md: {missing}"


def test_every_close_code_is_in_the_close_code_table() -> None:
    table = DOC[DOC.index("### Close codes") :]
    table = table[: table.index("\n### ")]
    documented = {int(code) for code in re.findall(r"^\| (\d{4}) \|", table, re.M)}
    sources = _server_sources()
    # Close codes are 1000-1015; 1006 is never sent (it names a connection dropped without a close frame).
    used = {int(c) for c in re.findall(r"\b(10(?:0\d|1[0-5]))\b", sources)} - {1006}
    used |= {1009}  # uvicorn's, for frames over its size limit
    assert used <= documented, f"close codes used but not documented: {sorted(used - documented)}"
