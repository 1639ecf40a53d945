"""The reply reader (harness/isolation/handles/replies.py): a reader of untrusted bytes.

Whatever a host's process writes on its reply pipe, and however the kernel splits it into
chunks, the reader must come to the same verdict as reading the whole text at once line by
line: at most one reply per request, junk tolerated up to the allowance, no line over the
limit, and the first violation final.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from harness.isolation.handles.replies import JUNK_ALLOWANCE, LINE_LIMIT, ReplyReader

TOKEN = b"0123456789abcdef "
PIECES = st.one_of(
    st.sampled_from([TOKEN + b"MOVES CCD\n", TOKEN + b"ERROR x\n", TOKEN + "MOVES é\n".encode()]),
    st.binary(max_size=40).map(lambda junk: junk.replace(b"\n", b"") + b"\n"),
    st.just(b"\n"),
    st.just(b"0123456789abcdeX MOVES DDD\n"),      # a forged token
    st.just(b"x" * (LINE_LIMIT + 1) + b"\n"),
    st.just(TOKEN + b"M" * (LINE_LIMIT - len(TOKEN)) + b"\n"),   # exactly at the limit
    st.binary(min_size=1, max_size=20).map(lambda text: text.replace(b"\n", b"")),  # no end
)


def verdict_of_whole_text(data: bytes):
    """(reply, kind of violation or None), reading the whole text line by line."""
    *lines, unfinished = data.split(b"\n")
    reply, junk = None, 0
    for line in lines:
        if len(line) > LINE_LIMIT:
            return reply, "over"
        if not line.startswith(TOKEN):
            junk += 1
            if junk > JUNK_ALLOWANCE:
                return reply, "junk"
            continue
        if reply is not None:
            return reply, "second"
        reply = line[len(TOKEN):].decode("utf-8", "replace")
    return reply, ("over" if len(unfinished) > LINE_LIMIT else None)


def kind(broken):
    if broken is None:
        return None
    for word, name in (("over", "over"), ("not replies", "junk"), ("second", "second")):
        if word in broken:
            return name
    return broken


@pytest.mark.slow  # measured: seconds of CPU
@settings(max_examples=400, derandomize=True)
@given(pieces=st.lists(PIECES, max_size=40), cuts=st.lists(st.integers(0, 1 << 16)))
def test_any_chunking_gives_the_verdict_of_the_whole_text(pieces, cuts):
    data = b"".join(pieces)
    reader = ReplyReader(TOKEN)
    reader.expect()
    edges = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    for start, end in zip(edges, edges[1:], strict=False):
        reader.feed(data[start:end])
    assert (reader.reply, kind(reader.broken)) == verdict_of_whole_text(data)
    assert len(reader.partial) <= LINE_LIMIT or reader.broken


@given(st.binary(max_size=200))
def test_a_reply_while_the_request_is_still_being_written_is_a_violation(junk):
    reader = ReplyReader(TOKEN)
    reader.expect()
    reader.feed(junk.replace(b"\n", b"") + b"\n" + TOKEN + b"MOVES CCC\n", request_unsent=True)
    assert reader.reply is None and reader.broken == "a reply before its request was sent"


def test_a_reply_when_none_is_due_is_a_violation_and_the_next_request_cannot_undo_it():
    reader = ReplyReader(TOKEN)
    reader.expect()
    reader.feed(TOKEN + b"READY\n")
    assert reader.take() == "READY" and reader.broken is None
    reader.feed(TOKEN + b"MOVES CCC\n")            # before the next request
    assert reader.broken.startswith("a reply to no request")
    reader.expect()
    reader.feed(TOKEN + b"MOVES CCC\n")
    assert reader.reply is None and reader.broken.startswith("a reply to no request")
