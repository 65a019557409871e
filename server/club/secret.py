"""The server's secret key, which signs session cookies and guest passes: ``$SPARROW_SECRET``, or a
key generated on first start and kept in ``secret.key`` in the data directory (readable by the
server's user only, outside the web root). Replacing it logs everyone out and changes nothing else.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["SECRET_FILE", "load_secret"]

SECRET_FILE = "secret.key"


def load_secret(data_dir: Path | None = None) -> str:
    """The secret key, generated and stored in ``data_dir`` (default ``$SPARROW_DATA`` or ./data) if
    there is none yet."""
    given = os.environ.get("SPARROW_SECRET")
    if given:
        return given
    folder = data_dir or Path(os.environ.get("SPARROW_DATA", "data"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SECRET_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(48)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return path.read_text().strip()
    with os.fdopen(fd, "w") as file:
        file.write(key + "\n")
    return key
