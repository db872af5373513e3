"""Every test checks something: a test function that asserts nothing passes whatever the code
does and reads as a guarantee it is not (STYLE.md).

A test checks something when its body, read as Python source (no test is run), has an
``assert``; a ``pytest.raises``/``pytest.warns``/``pytest.fail``/``pytest.deprecated_call``;
an ``.assert_*`` call (a mock's, a helper's); or a call to a helper that does one of these
(helpers of helpers included). A helper counts only where the test can reach it: defined or
imported in the test's own module, or a fixture the test takes as an argument (conftest.py)
— so a test calling some other module's ``compare`` is not vouched for by ours.
"""

from __future__ import annotations

import ast
import gc
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PYTEST_CHECKS = {"raises", "warns", "fail", "deprecated_call"}


def checks_and_calls(function: ast.AST) -> tuple[bool, set[str]]:
    """Whether ``function``'s body asserts or calls pytest's checks itself, and the names it
    calls as ``helper(...)`` and ``anything.assert_*(...)``'s: one walk for both."""
    checks = False
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            checks = True
        elif isinstance(node, ast.Call):
            called = node.func
            if isinstance(called, ast.Name):
                names.add(called.id)
            elif isinstance(called, ast.Attribute):
                on_pytest = isinstance(called.value, ast.Name) and called.value.id == "pytest"
                if on_pytest and called.attr in PYTEST_CHECKS:
                    checks = True
                if called.attr.startswith("assert_"):  # unittest.mock's assert_called_once_with and kin
                    checks = True
                if called.attr.startswith("assert"):
                    names.add(called.attr)
    return checks, names


def functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def module_helpers(
    tree: ast.Module, found: list[ast.FunctionDef | ast.AsyncFunctionDef], folder: Path
) -> set[str]:
    """The names every test of a module can call as helpers: the module's functions
    (``found``) and what it imports from a module under ``folder`` (a test adds its fixtures)."""
    names = {function.name for function in found}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module.replace(".", "/") + ".py"
            if (folder / module).is_file() or (folder.parent / module).is_file():
                names |= {alias.asname or alias.name for alias in node.names}
    return names


def parsed(paths: list[Path]) -> dict[Path, ast.Module]:
    """Each file's syntax tree. The trees are ~175,000 new objects that live until the test
    ends: the garbage collector would scan the worker's whole heap (every run and figure the
    tests before kept) several times while they are made, for no garbage (~0.5 s of CPU)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return {path: ast.parse(path.read_text(), str(path)) for path in paths}
    finally:
        if enabled:
            gc.enable()


def unchecking_tests(folder: Path) -> list[str]:
    """``path::test_name`` of each test function under ``folder`` that checks nothing."""
    trees = parsed(sorted(folder.rglob("*.py")))
    found = {path: functions(tree) for path, tree in trees.items()}
    every = [(path, function, *checks_and_calls(function)) for path in trees for function in found[path]]
    # The helpers that check: those that do it themselves, then those calling one (to a fixed point).
    checking = {function.name for _, function, checks, _ in every if checks}
    calls: dict[str, set[str]] = {function.name: set() for _, function, _, _ in every}
    for _, function, _, names in every:
        calls[function.name] |= names
    grew = True
    while grew:
        more = {name for name, called in calls.items() if name not in checking and called & checking}
        grew = bool(more)
        checking |= more
    helpers = {
        path: module_helpers(trees[path], found[path], folder)
        for path in trees
        if path.name.startswith("test_")
    }
    return [
        f"{path.relative_to(folder.parent)}::{function.name}"
        for path, function, checks, names in every
        if path.name.startswith("test_")
        and function.name.startswith("test_")
        and not checks
        and not names & checking & (helpers[path] | {argument.arg for argument in function.args.args})
    ]


def test_every_test_function_checks_something():
    assert unchecking_tests(TESTS) == []


def test_a_test_emptied_of_its_assertion_is_found(tmp_path):
    # The restored tests/core/test_summary_width.py test, as a later commit had left it,
    # beside tests that do check, through a helper, a fixture or pytest.raises.
    (tmp_path / "test_width.py").write_text(
        "from helpers import check_row\n\n"
        "def heaviest_row(capsys):\n"
        "    return capsys.readouterr().out\n\n"
        "def test_at_80_columns_names_are_cut_and_numbers_stay_whole(capsys, monkeypatch):\n"
        '    monkeypatch.delenv("COLUMNS", raising=False)\n\n'
        "def test_calls_a_helper_that_checks(capsys):\n"
        "    check_row(heaviest_row(capsys))\n\n"
        "def test_calls_a_fixture_that_checks(checked):\n"
        "    checked(1)\n\n"
        "def test_raises(capsys):\n"
        "    with pytest.raises(SystemExit):\n"
        "        heaviest_row(capsys)\n"
    )
    # compare() here checks, but test_other.py's compare() is another one: not vouched for.
    (tmp_path / "test_other.py").write_text(
        "from somewhere import compare\n\ndef test_calls_another_modules_compare():\n    compare(1, 2)\n"
    )
    (tmp_path / "helpers.py").write_text(
        "def check_row(row):\n    assert row\n\ndef compare(a, b):\n    assert a == b\n"
    )
    (tmp_path / "conftest.py").write_text(
        "def checked():\n    def check(value):\n        assert value\n    return check\n"
    )
    assert unchecking_tests(tmp_path) == [
        f"{tmp_path.name}/test_other.py::test_calls_another_modules_compare",
        f"{tmp_path.name}/test_width.py::test_at_80_columns_names_are_cut_and_numbers_stay_whole",
    ]
