"""Hypothesis strategies for JSON documents, for the tests of the diff format (server.statediff) and of
the load client's own patch.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["json_documents"]


def json_documents(
    key_alphabet: str, *, key_size: int, scalars: st.SearchStrategy[object], size: int, leaves: int
) -> tuple[st.SearchStrategy[str], st.SearchStrategy[object]]:
    """Object keys drawn from ``key_alphabet`` (1 to ``key_size`` characters), and documents built of
    ``scalars`` in lists and objects of at most ``size`` items, ``leaves`` scalars in all.
    """
    keys = st.text(alphabet=key_alphabet, min_size=1, max_size=key_size)
    documents = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=size) | st.dictionaries(keys, inner, max_size=size),
        max_leaves=leaves,
    )
    return keys, documents
