"""``rooftui profile --instructions``: the instruction roofline's counters are opt-in (one more
ncu replay pass on the H200: sample_data/known_answer/instructions/passes.txt)."""

from pathlib import Path

from rooftui.model.instructions import instruction_metrics
from rooftui.model.metrics import architecture_for, required_metrics
from tests.profile.conftest import rooftui_env, run_rooftui
from tests.profile.test_profile_cli import GOOD_RUN


def test_instructions_appends_the_instruction_counters_to_rooftuis_list(tmp_path, fake_bin, fake_ncu):
    ncu = Path(fake_ncu(GOOD_RUN))
    done = run_rooftui(
        ["profile", "--exhaustive", "--arch", "sm_90", "--instructions", "-o", "r", "./app"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 0, done.stderr
    asked = (ncu.parent / "argv.txt").read_text().splitlines()[1].split(",")
    hopper = required_metrics(architecture_for("9.0"))
    assert asked == hopper + instruction_metrics()
    assert "smsp__inst_executed.sum" not in hopper  # without the option, no extra pass


def test_the_measured_pass_cost_is_one_pass_on_the_h200():
    passes = Path(__file__).parents[2] / "sample_data" / "known_answer" / "instructions" / "passes.txt"
    lines = dict(line.split(":", 1) for line in passes.read_text().splitlines())
    assert "- 8 passes" in lines["passes_rooftui"]
    assert "- 9 passes" in lines["instructions"]
