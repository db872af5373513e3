import pytest

from rooftui.errors import InputError
from rooftui.timeline.readers import read_trace
from rooftui.timeline.trace import GpuKind
from tests.timeline.kineto_builder import KinetoTraceBuilder, naive_step


def test_gzipped_and_plain_traces_read_the_same(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    plain = read_trace(b.write(tmp_path / "t.json"))
    gzipped = read_trace(b.write(tmp_path / "t.json.gz"))
    assert plain.gpu.start.tolist() == gzipped.gpu.start.tolist()
    assert plain.names == gzipped.names


def test_events_become_tables_in_seconds_from_the_first_event(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    trace = read_trace(b.write(tmp_path / "t.json"))
    assert len(trace.gpu) == 26  # 2 copies + 4 convs + 20 adds
    assert int((trace.gpu.kind == GpuKind.MEMCPY).sum()) == 2
    assert len(trace.host_calls) == 28  # 24 launches + 2 cudaMemcpyAsync + 2 syncs
    assert trace.host_ranges.start.min() == 0.0
    first_copy = trace.gpu.take(trace.gpu.kind == GpuKind.MEMCPY)
    assert first_copy.start[0] == pytest.approx(310e-6)
    assert first_copy.end[0] == pytest.approx(390e-6)
    assert first_copy.bytes.tolist() == [8 << 20, 4]
    assert trace.device_names == {0: "NVIDIA H200"}
    assert trace.thread_names[4242] == "thread 4242 (python3)"


def test_events_with_missing_fields_are_counted_and_skipped(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    b.events.append({"ph": "X", "cat": "kernel", "name": "no_time", "pid": 0, "tid": 7})
    b.events.append({"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 1.0, "dur": 1.0})
    trace = read_trace(b.write(tmp_path / "t.json"))
    assert trace.skipped_events == 2
    assert len(trace.gpu) == 26


def test_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_trace(tmp_path / "absent.json")


def test_a_file_of_another_kind_is_an_input_error(tmp_path):
    other = tmp_path / "report.ncu-rep"
    other.write_bytes(b"\x00\x01")
    with pytest.raises(InputError, match="not a trace file rooftui can read"):
        read_trace(other)


def test_a_damaged_gzip_is_an_input_error(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    data = b.write(tmp_path / "t.json.gz").read_bytes()
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="truncated"):
        read_trace(cut)


def test_streams_and_devices_written_as_text_are_read(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    for event in b.events:
        if event.get("cat") == "kernel":
            del event["args"]["stream"], event["args"]["device"]
            event["tid"], event["pid"] = "stream 7", "0"
    trace = read_trace(b.write(tmp_path / "t.json"))
    assert trace.skipped_events == 0
    assert set(trace.gpu.stream.tolist()) == {7}
    assert set(trace.gpu.device.tolist()) == {0}


def test_an_unreadable_file_is_an_input_error(tmp_path, monkeypatch):
    import os

    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    path = b.write(tmp_path / "t.json")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", refuse)  # every input is opened by rooftui.ingest.files
    with pytest.raises(InputError, match=r"permission denied"):
        read_trace(path)


def test_an_operator_written_before_its_parent_with_the_same_start_still_nests(tmp_path):
    from rooftui.timeline.context import TraceContext

    b = KinetoTraceBuilder()
    b.annotation("ProfilerStep#1", 0, 100)
    b.op("aten::_local_scalar_dense", 10, 20)  # Kineto may write the child first
    b.op("aten::item", 10, 30)
    b.kernel("void k(...)", 12, 15, 5)
    context = TraceContext(read_trace(b.write(tmp_path / "t.json")))
    assert context.host_call(4242, 12.0e-6) == "aten::item > aten::_local_scalar_dense"
