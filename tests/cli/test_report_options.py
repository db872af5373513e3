"""Every command that loads reports takes the same report options, with one meaning each,
and every hint in an error message names an option the command really has."""

import ast
import re
from pathlib import Path

import click
import pytest

from rooftui.cli import cli
from tests.conftest import KNOWN, ROOT, run_cli

REPORT_COMMANDS = ("open", "summary", "plot", "diff", "advise")
SAMPLE = ROOT / "rooftui" / "data" / "sample"

# Which commands can raise the errors written in each module (by the path under rooftui/).
# A module missing here fails the test, so a new module is placed on purpose.
COMMANDS_OF_MODULE = {
    "analysis": REPORT_COMMANDS,
    "ingest": REPORT_COMMANDS,
    "model": REPORT_COMMANDS,
    "cli/open_cmd.py": ("open",),
    "cli/summary.py": ("summary",),
    "cli/plot.py": ("plot",),
    "cli/diff.py": ("diff",),
    "cli/advise.py": ("advise",),
    "views/advise.py": ("advise",),
    "cli/metrics.py": ("metrics",),
    "cli/measure.py": ("measure",),
    "cli/profile.py": ("profile",),
    "cli/timeline.py": ("timeline",),
    "cli/__init__.py": (*REPORT_COMMANDS, "timeline", "measure", "profile", "metrics"),
    "measure": ("measure",),
    "profile/gpus.py": ("profile", "metrics"),
    "profile/ncu.py": ("profile",),  # find_ncu and the report check: only `profile` runs ncu
    "profile/run.py": ("profile",),
    "profile/job.py": ("profile",),
    "profile/dedup.py": ("profile",),
    "profile/deduplicated.py": ("profile",),
    "profile/launchers.py": ("profile",),
    "cli/profile_job.py": ("profile",),
    "timeline": ("timeline",),
}
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
# A message that names another program gives that program's options (ncu's --print-units).
OTHER_PROGRAM = re.compile(r"\bncu\b|\bpip\b")


def _command(name: str) -> click.Command:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, name
    return command


def _options_of(name: str) -> set[str]:
    """Every option string of ``rooftui NAME``, --help included."""
    command = _command(name)
    context = click.Context(command, parent=click.Context(cli, **cli.context_settings))
    return {opt for param in command.get_params(context) for opt in (*param.opts, *param.secondary_opts)}


def _message_strings(tree: ast.AST):
    """String pieces of exception constructions, ``fix=``/``fix =`` hints and notes."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name.endswith(("Error", "Exception", "BadParameter")) or name == "append":
                yield from _constants(node)
            else:
                for keyword in node.keywords:
                    if keyword.arg in ("fix", "param_hint"):
                        yield from _constants(keyword.value)
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "fix" for t in node.targets):
            yield from _constants(node.value)


def _constants(node: ast.AST):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


def _hints():
    for path in sorted((ROOT / "rooftui").rglob("*.py")):
        relative = path.relative_to(ROOT / "rooftui").as_posix()
        for text in _message_strings(ast.parse(path.read_text())):
            if OTHER_PROGRAM.search(text):
                continue
            for option in OPTION.findall(text):
                yield relative, option, text


def _commands_for(relative: str) -> tuple[str, ...] | None:
    for prefix, commands in COMMANDS_OF_MODULE.items():
        if relative == prefix or relative.startswith(prefix + "/"):
            return commands
    return None


def test_every_hint_in_an_error_message_names_an_option_of_the_command():
    hints = list(_hints())
    assert any(option == "--skip-invalid" for _, option, _ in hints)  # the scan finds real hints
    wrong = []
    for relative, option, text in hints:
        commands = _commands_for(relative)
        if commands is None:
            wrong.append(f"{relative}: no commands listed for this module ({text!r})")
            continue
        wrong += [
            f"{relative}: {option} is not an option of `rooftui {command}` ({text!r})"
            for command in commands
            if option not in _options_of(command)
        ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "flag", ["--ceilings", "--phase", "--no-infer-phases", "--skip-invalid", "--gpu", "--arch", "--fp16-rule"]
)
def test_a_report_option_is_the_same_option_on_every_command_that_loads_reports(flag):
    declared = set()
    for name in REPORT_COMMANDS:
        [param] = [p for p in _command(name).params if flag in (*p.opts, *p.secondary_opts)]
        declared.add((param.name, param.help, param.multiple, getattr(param, "metavar", None)))
    assert len(declared) == 1, declared


def test_phase_is_name_equals_regex_everywhere_and_plot_filters_with_only_phase():
    for name in REPORT_COMMANDS:
        [param] = [p for p in _command(name).params if "--phase" in p.opts]
        assert param.metavar == "NAME=REGEX" and param.multiple
    assert "--only-phase" in _options_of("plot")


def _zero_duration_report(tmp_path: Path) -> Path:
    """The known-answer export with one kernel's duration set to zero."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO((KNOWN / "known_answer.raw-base.csv").read_text())))
    rows[2][rows[0].index("gpu__time_duration.sum")] = "0"
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path = tmp_path / "edited.csv"
    path.write_text(out.getvalue())
    return path


def test_skip_invalid_works_wherever_the_error_suggests_it(tmp_path, monkeypatch):
    bad = _zero_duration_report(tmp_path)
    refused = run_cli("plot", bad, "--csv", tmp_path / "out.csv")
    assert refused.returncode == 2 and "--skip-invalid" in refused.stderr
    assert run_cli("plot", bad, "--csv", tmp_path / "out.csv", "--skip-invalid").returncode == 0
    assert run_cli("summary", bad, "--skip-invalid", "--format", "csv").returncode == 0
    compared = run_cli("diff", bad, bad, "--skip-invalid", "--format", "csv")
    assert compared.returncode == 0  # and what --format csv writes is the comparison's CSV:
    assert compared.stdout.startswith("status,method,key,rank,candidates_a,candidates_b,name_a,")

    opened = []

    class FakeApp:
        load_error = None

        def run(self):
            pass

    def fake_make_app(paths, **kwargs):
        opened.append(kwargs["options"])
        return FakeApp()

    monkeypatch.setattr("rooftui.views.tui.app.make_app", fake_make_app)
    assert run_cli(bad, "--skip-invalid", "--phase", "fwd=forward").returncode == 0
    [options] = opened
    assert options.skip_invalid and options.phase_specs == ("fwd=forward",)
    assert options.load([bad]).kernels.shape[0] > 0


def _compared_runs(monkeypatch):
    captured = []

    def fake_compare(run_a, run_b, label_a, label_b):
        captured.append((run_a, run_b))
        return None

    monkeypatch.setattr("rooftui.analysis.compare.compare_runs", fake_compare)
    monkeypatch.setattr("rooftui.views.tui.screens.compare.CompareApp.run", lambda self: None)
    monkeypatch.setattr("rooftui.cli.terminal.has_terminal", lambda: True)  # in a terminal
    return captured


def test_compare_keeps_ceilings(monkeypatch):
    captured = _compared_runs(monkeypatch)
    ceilings = SAMPLE / "h200_ceilings.json"
    known = KNOWN / "known_answer.raw-base.csv"  # any two H200 reports: the smallest, twice
    result = run_cli(known, known, "--compare", "--ceilings", ceilings)
    assert result.returncode == 0, result.stderr
    [(run_a, run_b)] = captured
    for run in (run_a, run_b):
        hbm = run.ceilings.bandwidth("hbm")
        # from the file given: without it an H200 gets rooftui's bundled ceilings, empirical too
        assert (hbm.method, hbm.source, Path(hbm.origin).name) == ("empirical", "file", ceilings.name), hbm


def test_compare_with_a_trace_says_it_has_no_timeline_instead_of_dropping_it(monkeypatch):
    _compared_runs(monkeypatch)
    trace = ROOT / "sample_data" / "timeline"
    trace = next(trace.glob("*.json*"))
    result = run_cli(
        SAMPLE / "deepcam_fp32.raw-base.csv.xz",
        SAMPLE / "deepcam_amp.raw-base.csv.xz",
        "--compare",
        "--trace",
        trace,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "--trace" in result.stderr and "no timeline" in result.stderr
