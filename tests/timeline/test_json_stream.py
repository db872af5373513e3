import io
import json

import pytest

from rooftui.timeline.readers.json_stream import JsonStreamError, iter_array_items

DOCUMENT = {
    "schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}],
    "traceEvents": [
        {
            "ph": "X",
            "name": "k" * (i % 300),
            "ts": 1.7e12 + i * 0.125,
            "args": {"n": i, "ok": True, "none": None, "text": 'é \\u00e9 "quoted"'},
        }
        for i in range(2000)
    ],
    "traceName": "after the array",
}
TEXT = json.dumps(DOCUMENT, indent=1)


def stream_items(text: str, chunk_chars: int = 1 << 20) -> tuple[list, dict]:
    others: dict = {}
    items = list(iter_array_items(io.StringIO(text), "traceEvents", others, chunk_chars))
    return items, others


@pytest.mark.parametrize("chunk_chars", [1, 3, 64, 4096, 1 << 20])
def test_streaming_gives_every_event_whatever_the_chunk_size(chunk_chars):
    items, others = stream_items(TEXT, chunk_chars)
    assert items == DOCUMENT["traceEvents"]
    assert others == {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}],
        "traceName": "after the array",
    }


def test_an_empty_event_array_gives_no_items():
    assert stream_items('{"traceEvents": []}') == ([], {})


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.999])
def test_a_cut_file_is_reported_as_truncated(cut):
    with pytest.raises(JsonStreamError) as error:
        stream_items(TEXT[: int(len(TEXT) * cut)], chunk_chars=997)
    assert error.value.truncated
    assert "ends" in str(error.value) or "expected" in str(error.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello", "not a JSON object"),
        ("[1, 2]", "not a JSON object"),
        ('{"other": 1}', 'no "traceEvents" array'),
        ('{"traceEvents": [1, 2 3]}', "expected ',' or ']'"),
        ('{"traceEvents": [{"a": tru}]}', "not valid JSON"),
        ('{"traceEvents": []} trailing', "extra text"),
    ],
)
def test_text_that_is_not_a_trace_says_what_is_wrong(text, message):
    with pytest.raises(JsonStreamError, match=message) as error:
        stream_items(text)
    assert not error.value.truncated


def test_an_item_longer_than_the_buffer_is_read_whole():
    long_name = "k" * 100_000
    items, _ = stream_items(json.dumps({"traceEvents": [{"name": long_name}, 1]}), chunk_chars=64)
    assert items == [{"name": long_name}, 1]


def test_an_unterminated_string_stops_at_the_size_limit(monkeypatch):
    from rooftui.timeline.readers import json_stream

    monkeypatch.setattr(json_stream, "MAX_VALUE_CHARS", 10_000)
    text = '{"traceEvents": [{"name": "' + "x" * 50_000 + '"}]}'
    with pytest.raises(JsonStreamError, match="runs past"):
        stream_items(text.replace('x"}', "x}"), chunk_chars=1000)
