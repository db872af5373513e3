"""``python -m rooftui.measure ...`` is ``rooftui measure ...`` (used for one process per GPU)."""

from rooftui.cli import main

main(["measure", *__import__("sys").argv[1:]])
