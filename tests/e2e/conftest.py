"""Browser tests: the real app served by uvicorn on a free port (in a thread with its own event loop),
driven through Debian's Chromium by Playwright's sync API. Never a downloaded browser: without
/usr/bin/chromium the tests skip (on a laptop) or fail (in CI, which installs it in .ci/run).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, LiveServer
from playwright.sync_api import expect

ARTIFACTS = Path(__file__).parent / "artifacts"

# `--doctest-modules` imports this file as a module named `conftest`; given tests/e2e and another
# folder's tests in one run, that name may already be the other folder's conftest and the import
# fails. It has no doctests: only pytest's conftest loader reads it.
collect_ignore = ["conftest.py"]


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    """The server for the browser tests of one module (Playwright's sync loop must not outlive them)."""
    with LiveServer() as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, for one module."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run should have installed Debian's chromium")
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def on_console(message: Any, problems: list[str]) -> None:
    """A console error is a problem, except the browser's own notes of an HTTP error status (a page
    that asks for a missing player, say, and says so itself) and of a socket refused by a server that
    has stopped (a test's server stops before its pages close; the page waits and tries again)."""
    text = message.text
    refused = text.startswith("WebSocket connection to") and text.endswith("net::ERR_CONNECTION_REFUSED")
    if message.type == "error" and not text.startswith("Failed to load resource") and not refused:
        problems.append(f"console error: {text}")


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Open pages in fresh browser contexts (separate storage, like separate people); all closed after."""
    contexts: list[Any] = []
    problems: list[str] = []  # dialogs, uncaught script errors and console errors: each fails the test

    def open_page(width: int = 1280, height: int = 900, *, bypass_csp: bool = False) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=bypass_csp)
        context.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()

        def on_dialog(dialog: Any) -> None:
            problems.append(f"a dialog fired: {dialog.message!r}")
            dialog.dismiss()

        page.on("dialog", on_dialog)
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("console", lambda msg: on_console(msg, problems))
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not problems, problems


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (git-ignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
