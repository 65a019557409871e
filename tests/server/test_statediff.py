"""The diff format of docs/protocol.md: `patch(old, diff(old, new)) == new` for any JSON documents."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsondocs import json_documents

from server.statediff import Memo, PatchError, diff, patch, patch_in_place

scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
keys, documents = json_documents("abcxyz019_#+²", key_size=4, scalars=scalars, size=5, leaves=30)
# Diff-shaped values, mostly not fitting the document they meet: replacements, removals, nested
# changes with list indices (some not digits a list has), cuts and appends, and some malformed.
changes = st.recursive(
    st.builds(lambda v: [v], documents) | st.just([]) | scalars | st.lists(scalars, min_size=2, max_size=2),
    lambda inner: st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)


@given(documents, documents)
def test_patch_of_diff_rebuilds_the_new_document(old: object, new: object) -> None:
    assert patch(old, diff(old, new)) == new


@given(documents)
def test_equal_documents_have_an_empty_diff(doc: object) -> None:
    assert diff(doc, doc) is None


@given(documents, documents)
def test_diff_and_patch_leave_their_inputs_alone(old: object, new: object) -> None:
    before = repr((old, new))
    patch(old, diff(old, new))
    assert repr((old, new)) == before


@given(documents, documents, documents)
def test_a_shared_memo_gives_each_document_its_own_diff(shared: object, a: object, b: object) -> None:
    """A table diffs four seats' documents with one memo; where they share a part, the part's diff is
    reused, and every document must still get exactly the diff it would get alone.
    """
    olds = [{"shared": shared, "own": a}, {"shared": shared, "own": b}]
    news = [{"shared": b, "own": shared}, {"shared": b, "own": a}]
    memo: Memo = {}
    for old, new in zip(olds, news, strict=True):
        assert diff(old, new, memo) == diff(old, new)
        assert patch(old, diff(old, new, memo)) == new


@given(documents, documents)
def test_patch_in_place_rebuilds_the_new_document_from_fresh_objects(old: object, new: object) -> None:
    """The load client patches its own state with each diff it has just decoded, without copies."""
    state = json.loads(json.dumps(old))
    assert patch_in_place(state, json.loads(json.dumps(diff(old, new)))) == new


@given(documents, changes)
def test_any_change_is_applied_or_refused_with_a_patch_error(document: object, change: object) -> None:
    """A diff from the network either fits or is refused as a PatchError (the client resyncs); no
    other exception, and `patch` leaves both inputs alone either way.
    """
    before = repr((document, change))
    try:
        result = patch(document, change)
    except PatchError:
        result = None
    assert repr((document, change)) == before
    try:
        in_place = patch_in_place(copy.deepcopy(document), copy.deepcopy(change))
    except PatchError:
        in_place = None
    assert in_place == result


def test_an_appended_discard_is_one_small_change() -> None:
    old = {"game": {"discards": [{"seat": 0, "tile": "1b"}], "wall": {"live": 70, "dead": 8}}}
    new = {"game": {"discards": [{"seat": 0, "tile": "1b"}, {"seat": 1, "tile": "W"}], "wall": {"live": 69, "dead": 8}}}
    assert diff(old, new) == {"game": {"discards": {"+": [{"seat": 1, "tile": "W"}]}, "wall": {"live": [69]}}}


@pytest.mark.parametrize(
    "change",
    [
        [1, 2],
        "text",
        {"missing": {"key": [1]}},
        {"a": {"+": [1]}},
        {"nope": []},
        {"l": {"#": 5}},
        {"l": {"9": [1]}},
        {"l": {"x": [1]}},
        {"l": {"+": 3}},
        {"l": {"²": [1]}},
        {"l": {"#": True}},
    ],
)
def test_a_diff_that_does_not_fit_is_refused(change: object) -> None:
    with pytest.raises(PatchError):
        patch({"a": 1, "l": [1, 2]}, change)
