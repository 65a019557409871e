"""Diffs between two JSON documents, in the compact nested format of docs/protocol.md.

A diff mirrors the shape of the document, holding only what changed:

- ``[value]`` (a one-element list): the node becomes ``value``;
- ``[]`` (an empty list): the key is removed from its object;
- an object, for a node that is an object in both documents: ``{key: diff, …}`` for the keys that
  changed;
- an object, for a node that is a list in both documents: ``{"3": diff}`` changes element 3,
  ``{"#": n}`` first cuts the list to ``n`` elements, ``{"+": [a, b]}`` then appends ``a`` and ``b``.

A diff frame is sent to every seat after every action, so the format avoids repeating paths: a
discard seen by another seat is one small object. The whole document may be replaced by ``[doc]``.

>>> old = {"a": 1, "l": [1, 2], "o": {"x": 1, "y": 2}}
>>> new = {"a": 2, "l": [1, 5, 3], "o": {"y": 2}}
>>> d = diff(old, new)
>>> d
{'a': [2], 'l': {'1': [5], '+': [3]}, 'o': {'x': []}}
>>> patch(old, d) == new
True
>>> diff(new, new) is None
True
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["Memo", "PatchError", "diff", "patch", "patch_in_place"]

Json = Any  # a decoded JSON value
Memo = dict[tuple[int, int], Json]  # (id(old), id(new)) → their diff, for containers


class PatchError(ValueError):
    """A diff that does not fit the document it is applied to."""


def diff(old: Json, new: Json, memo: Memo | None = None) -> Json:
    """The diff that turns ``old`` into ``new``, or None when they are equal (neither is modified).

    ``memo`` lets several diffs share work: when the same pair of objects meets again (the parts that
    several documents share, such as the public part of four seats' views), the diff found the first
    time is reused. Use one memo only while every object it has seen is alive and unchanged (it is
    keyed by identity), e.g. for the diffs of one publish.
    """
    if old is new:
        return None
    if type(old) is not type(new):
        return [new]
    if isinstance(new, dict):
        return _diff_dict(old, new, memo)
    if isinstance(new, list):
        return _diff_list(old, new, memo)
    return None if old == new else [new]


# `diff` runs for every seat after every action, so the two walkers below inline the common cases
# (an unchanged scalar, a nested object or list) instead of calling `diff` for each node.


def _diff_dict(old: dict[str, Json], new: dict[str, Json], memo: Memo | None) -> Json:
    if memo is not None:
        pair = (id(old), id(new))
        if pair in memo:
            return memo[pair]
    out: dict[str, Json] = {}
    kept = 0
    for key, value in new.items():
        if key not in old:
            out[key] = [value]
            continue
        kept += 1
        before = old[key]
        if before is value:
            continue
        if type(before) is not type(value):
            out[key] = [value]
        elif isinstance(value, dict):
            sub = _diff_dict(before, value, memo)
            if sub is not None:
                out[key] = sub
        elif isinstance(value, list):
            sub = _diff_list(before, value, memo)
            if sub is not None:
                out[key] = sub
        elif before != value:
            out[key] = [value]
    if kept < len(old):
        for key in old:
            if key not in new:
                out[key] = []
    result = out or None
    if memo is not None:
        memo[pair] = result
    return result


def _diff_list(old: list[Json], new: list[Json], memo: Memo | None) -> Json:
    if memo is not None:
        pair = (id(old), id(new))
        if pair in memo:
            return memo[pair]
        result = _diff_list_walk(old, new, memo)
        memo[pair] = result
        return result
    return _diff_list_walk(old, new, None)


def _diff_list_walk(old: list[Json], new: list[Json], memo: Memo | None) -> Json:
    n = len(old)
    if len(new) >= n and new[:n] == old:  # unchanged, or only appended to (a discard, a meld)
        return {"+": new[n:]} if len(new) > n else None
    common = min(n, len(new))
    changed = [i for i in range(common) if old[i] != new[i]]
    if len(changed) > 2 and len(changed) * 2 > common:  # mostly different: send it whole
        return [new]
    out: dict[str, Json] = {str(i): diff(old[i], new[i], memo) for i in changed}
    if len(new) < n:
        out["#"] = len(new)
    if len(new) > common:
        out["+"] = new[common:]
    return out


def patch(document: Json, change: Json) -> Json:
    """``document`` with ``change`` applied (neither input is modified).

    :raises PatchError: if the diff is malformed or does not fit the document.
    """
    return patch_in_place(copy.deepcopy(document), copy.deepcopy(change))


def patch_in_place(document: Json, change: Json) -> Json:
    """``document`` with ``change`` applied *in place*, without `patch`'s copies: for a client that
    patches its own state with the diff it has just decoded (the load client). The values of ``change``
    become part of the result, so it must not be used again; on a diff that does not fit, ``document``
    may be left half changed (resync).

    :raises PatchError: if the diff is malformed or does not fit the document.
    """
    if change is None:
        return document
    return _apply(document, change, "")


def _apply(node: Json, change: Json, path: str) -> Json:
    if type(change) is list:
        if len(change) != 1:
            raise PatchError(f"at {path or '/'}: a replacement is [value], not {change!r}")
        return change[0]
    if type(change) is not dict:
        raise PatchError(f"at {path or '/'}: a diff is [value] or an object, not {change!r}")
    if type(node) is dict:
        for key, sub in change.items():
            if type(sub) is list:
                if not sub:
                    if key not in node:
                        raise PatchError(f"at {path}/{key}: no key to remove")
                    del node[key]
                elif len(sub) == 1:
                    node[key] = sub[0]
                else:
                    raise PatchError(f"at {path}/{key}: a replacement is [value], not {sub!r}")
            elif key in node:
                node[key] = _apply(node[key], sub, f"{path}/{key}")
            else:
                raise PatchError(f"at {path}/{key}: no such key to change")
        return node
    if type(node) is list:
        size = len(node)
        for key, sub in change.items():
            if key == "#" or key == "+":
                continue
            index = int(key) if key.isascii() and key.isdigit() else size
            if index >= size:
                raise PatchError(f"at {path}: bad list index {key!r}")
            node[index] = _apply(node[index], sub, f"{path}/{key}")
        if "#" in change:
            cut = change["#"]
            if type(cut) is not int or not 0 <= cut <= size:
                raise PatchError(f"at {path}: cannot cut a list of {size} to {cut!r}")
            del node[cut:]
        if "+" in change:
            added = change["+"]
            if type(added) is not list:
                raise PatchError(f"at {path}: '+' takes a list of items to append")
            node.extend(added)
        return node
    raise PatchError(f"at {path or '/'}: cannot change {node!r} with {change!r}")
