"""The explorer's keys: its bindings (``EXPLORER_BINDINGS``, the screen's ``BINDINGS``) and what the help
screen adds about the kernel table, the filter bar and the mouse. The actions they name
are the screen's (``action_<name>``); each calls one ``ExplorerModel`` method."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from rooftui.views.tui.screens.help import HelpRow

# The footer shows the keys a first-time user needs; `?` lists them all.
EXPLORER_BINDINGS: list[BindingType] = [
    Binding(
        "slash",
        "search",
        "find",
        key_display="/",
        tooltip="find a kernel by name, as in less: jumps to it, hides nothing",
    ),
    Binding("n", "search_next(1)", "next match of the find", show=False),
    Binding("N", "search_next(-1)", "previous match of the find", show=False),
    Binding(
        "f",
        "focus_filter",
        "filter",
        tooltip="filter the table by name (tab to the other filters)",
    ),
    Binding("F", "toggle_filters", "show/hide filter bar", show=False),
    Binding("x", "clear_filters", "clear filters", show=False),
    Binding(
        "g",
        "toggle_grouped",
        "group",
        tooltip="switch between kernels grouped by name and single invocations",
    ),
    Binding("1", "toggle_level('l1')", "L1 points and slope on/off", show=False),
    Binding("2", "toggle_level('l2')", "L2 points and slope on/off", show=False),
    Binding("3", "toggle_level('hbm')", "HBM points and slope on/off", show=False),
    Binding("4", "toggle_level('smem')", "shared-memory points and slope on/off", show=False),
    Binding("p", "pipelines", "choose compute roofs", show=False),
    Binding("i", "toggle_instruction", "instruction roofline / FLOP roofline", show=False),
    Binding("d", "toggle_detail", "detail", tooltip="show/hide the selected kernel's details"),
    Binding("z", "zoom_roofline", "zoom the roofline / back", show=False),
    Binding("s", "summary", "summary", tooltip="zero-AI share, time per phase and pipeline"),
    Binding("a", "advise", "advise", show=False, tooltip="the step budget and what to fix first"),
    Binding("t", "timeline", "timeline", tooltip="timeline of the --trace profile"),
    Binding(
        "y", "copy_name", "copy name", show=False, tooltip="copy the selected kernel's full name (OSC 52)"
    ),
    Binding("e", "export_svg", "svg", tooltip="save this view as SVG"),
    Binding("c", "export_csv", "csv", tooltip="save the filtered table as CSV"),
    Binding("escape", "focus_table", "back to the table (a find: back where it started)", show=False),
    # The roofline's own keys, from anywhere on the screen (widgets/roofline.py).
    Binding(
        "full_stop",
        "step_point(1)",
        "next point on the roofline (left to right)",
        show=False,
        key_display=".",
    ),
    Binding("comma", "step_point(-1)", "previous point on the roofline", show=False, key_display=","),
    Binding("v", "next_device", "next GPU's roofline (several GPUs)", show=False),
]

# What the help lists besides the bindings: the table's mouse and marks, the filter bar.
TABLE_HELP: list[HelpRow] = [
    ("kernel table", "click header", "sort by that column; click again to reverse"),
    ("kernel table", "click row", "select the kernel"),
    ("kernel table", "1-5 name", "the tag of a heaviest kernel, beside its points on the roofline"),
    ("kernel table", "FP16~", "FP16 CUDA-core FLOPs, which ncu counts approximately (d: the note)"),
    ("filter bar", "tab / shift+tab", "move between fields; esc back to the table"),
]
