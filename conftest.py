"""Collection for the whole tree: ``game/rl.py`` needs the optional ``rl`` extra, so its doctests are
collected only where PettingZoo is installed (``make test`` installs it).
"""

from __future__ import annotations

from importlib.util import find_spec

collect_ignore = [] if find_spec("pettingzoo") else ["game/rl.py"]
