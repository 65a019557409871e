"""Shared fixtures. Helpers live in importable modules (``gamekit``, ``tablekit``, ``livekit``) so that
no test imports a ``conftest`` (several folders have one)."""

from __future__ import annotations

import pytest
from gamekit import stacked_game


@pytest.fixture
def stack():
    """The :func:`stacked_game` helper, as a fixture."""
    return stacked_game
