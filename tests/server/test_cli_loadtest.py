"""``sparrow loadtest`` against a live in-process server: two tables play one hand as fast as allowed,
and the report counts what happened. No timing thresholds: this machine is shared. And the client's own
in-place patch agrees with ``server.statediff.patch``.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from hypothesis import given
from hypothesis import strategies as st
from jsondocs import json_documents

from server.app import create_app
from server.cli import build_parser
from server.cli.loadclient import PatchError, patch_in_place
from server.cli.loadtest import Options, loadtest
from server.statediff import diff, patch


@pytest.mark.asyncio
async def test_loadtest_plays_two_tables_and_reports_sane_figures(tmp_path: Path) -> None:
    # A database of its own: the default one (./data) is the one `make run` serves.
    app = create_app(db=f"sqlite+aiosqlite:///{tmp_path / 'load.db'}")
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            assert not serving.done(), "the server did not start"
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        options = Options(url=f"ws://127.0.0.1:{port}/ws", tables=2, hands=1, think=0, server_pid=os.getpid())
        report = await asyncio.wait_for(loadtest(options), 60)
    finally:
        server.should_exit = True
        await serving

    assert report["tables_finished"] == 2 and report["hands_played"] == 2
    latency, frames, errors = report["latency_ms"], report["frames"], report["errors"]
    assert latency["count"] > 0 and 0 < latency["p50"] <= latency["p99"] <= latency["max"]
    assert report["intents"] >= latency["count"] and report["answer_ms"]["count"] > 0
    assert frames["received"] > 0 and frames["diff_frames"] > 0 and frames["bytes"] > 0
    assert 0 < frames["median_diff_bytes"] < frames["snapshot_bytes_median"]
    assert 0 < frames["median_diff_wire_bytes"] < frames["median_diff_bytes"]  # deflated
    assert report["server"]["pid"] == os.getpid() and report["client"]["cpu_percent"] >= 0
    assert errors["disconnects"] == 0 and errors["timeouts"] == 0 and errors["resyncs"] == 0


def test_loadtest_command_line() -> None:
    args = build_parser().parse_args(["loadtest", "--tables", "3", "--hands", "2", "--think", "0.5", "--json"])
    assert (args.tables, args.hands, args.think, args.json) == (3, 2, 0.5, True)
    assert args.url == "ws://127.0.0.1:8765/ws"


scalars = st.none() | st.booleans() | st.integers(-3, 5) | st.text(max_size=2)
keys, documents = json_documents("abx019#+", key_size=2, scalars=scalars, size=4, leaves=20)
# Diff-shaped values, mostly not fitting the document they meet: replacements, removals, nested
# changes with list indices, cuts and appends, and some that are malformed.
changes = st.recursive(
    st.builds(lambda v: [v], documents) | st.just([]) | scalars | st.lists(scalars, min_size=2, max_size=2),
    lambda inner: st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)


def _fresh(value: Any) -> Any:
    return json.loads(json.dumps(value))  # as the client gets a diff: new objects, no sharing


def _patched(document: Any, change: Any) -> tuple[str, Any]:
    """What ``patch_in_place`` makes of ``document`` (a copy of it) and ``change``: the result, or the error."""
    try:
        return "ok", json.dumps(patch_in_place(copy.deepcopy(document), _fresh(change)))
    except PatchError:
        return "refused", None


def _expected(document: Any, change: Any) -> tuple[str, Any]:
    try:
        return "ok", json.dumps(patch(document, _fresh(change)))
    except ValueError:  # PatchError, or an index such as "²" that isdigit() accepts and int() does not
        return "refused", None


@given(documents, documents)
def test_patch_in_place_rebuilds_the_new_document(old: Any, new: Any) -> None:
    outcome, result = _patched(old, diff(old, new))
    assert outcome == "ok" and json.loads(result) == new  # a diff does not carry the order of new keys


@given(documents, changes)
def test_patch_in_place_agrees_with_statediff_patch(document: Any, change: Any) -> None:
    assert _patched(document, change) == _expected(document, change)


@given(documents, documents)
def test_patch_in_place_agrees_on_diffs_that_almost_fit(old: Any, new: Any) -> None:
    change = diff(old, new)  # a real diff, applied to a document it was not made for
    for document in (new, old if isinstance(old, dict | list) else [old], {"x": old}):
        assert _patched(document, change) == _expected(document, change)


@pytest.mark.parametrize(
    "change",
    [[1, 2], "text", {"missing": {"key": [1]}}, {"a": {"+": [1]}}, {"nope": []}, {"l": {"#": 5}}, {"l": {"9": [1]}}],
)
def test_patch_in_place_refuses_a_diff_that_does_not_fit(change: object) -> None:
    with pytest.raises(PatchError):
        patch_in_place({"a": 1, "l": [1, 2]}, change)
