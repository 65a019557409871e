"""Fixtures for server tests: a live server (uvicorn on a free port) for socket tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from livekit import LiveServer


@pytest_asyncio.fixture
async def live() -> AsyncIterator[LiveServer]:
    """uvicorn serving a fresh app (default socket limits, seeded tables) for one test."""
    async with LiveServer.running() as server:
        yield server
