"""``summary``, ``diff`` and ``advise --format json`` write their documents with
``views.json_text.dumps_indented``: it must be ``json.dumps(value, indent=1)``, byte for byte
(the standard library's encoder is the independent answer)."""

from __future__ import annotations

import json
import random

import pytest

from rooftui.views.formats import json_safe
from rooftui.views.json_text import dumps_indented
from rooftui.views.summary import to_json

# Text that could be taken for structure: quotes, backslashes before quotes, brackets,
# commas and colons inside strings, escapes, non-ASCII and control characters.
AWKWARD_TEXT = [
    "",
    "plain",
    'a "quoted" name',
    "ends with a backslash \\",
    'backslash then quote \\"',
    "\\\\",
    '"',
    '\\"\\"',
    "{[,]}",
    "}],[{",
    "key: value, other",
    "void at::native::(anonymous namespace)::kernel<float, 4>(int*, {1, 2})",
    "line\nbreak\ttab\x00nul\x02stx\x1f",
    "ünïcödé µs ≥ ∞ 😀",
    "[]",
    "{}",
]


def random_value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth < 5 and roll < 0.3:
        return {
            rng.choice(AWKWARD_TEXT) + str(i): random_value(rng, depth + 1) for i in range(rng.randint(0, 5))
        }
    if depth < 5 and roll < 0.5:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return rng.choice(
        [
            None,
            True,
            False,
            0,
            -7,
            2**70,
            0.0,
            -0.0,
            1e-300,
            1.5e300,
            1 / 3,
            float("nan"),
            float("inf"),
            -float("inf"),
            rng.choice(AWKWARD_TEXT),
            rng.random() * 10 ** rng.randint(-20, 20),
        ]
    )


def test_any_document_is_written_as_json_dumps_writes_it_with_indent_1():
    rng = random.Random(26)
    for _ in range(600):
        value = random_value(rng)
        assert dumps_indented(value) == json.dumps(value, indent=1), value


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        [[]],
        [{}],
        {"a": {}},
        {"a": []},
        [[], {}, [[]], {"b": [{}]}],
        "text, with {brackets}",
        3.25,
        None,
        {7: "int key", 2.5: "float key", True: "bool key", None: "none key"},
    ],
)
def test_empty_containers_scalars_and_keys_that_are_not_text(value):
    assert dumps_indented(value) == json.dumps(value, indent=1)


def test_what_json_cannot_hold_raises_as_json_dumps_does():
    with pytest.raises(TypeError):
        dumps_indented({"a": object()})


def test_a_runs_summary_document_is_json_dumps_text(load_once):
    run = load_once("rooftui/data/sample/deepcam_amp.raw-base.csv.xz")
    document = to_json(run, run.kernels)
    assert dumps_indented(document) == json.dumps(document, indent=1)
    assert dumps_indented(json_safe(document)) == json.dumps(document, indent=1)
