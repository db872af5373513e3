"""`y` says where the name went (issue 24 item 8): OSC 52 is sent, no terminal says it
arrived, and tmux passes it on only when told to."""

from __future__ import annotations

from rooftui.views.terminal import clipboard_message

NAME = "sm80_xmma_wgrad_implicit_gemm"


def tmux(**options: str):
    return lambda name: options.get(name.replace("-", "_"))


def test_outside_tmux_it_says_sent_by_osc52_not_copied():
    message = clipboard_message(NAME, {})
    assert message == f"sent to the clipboard by OSC 52 (if the terminal allows it): {NAME}"
    assert not message.startswith("copied")


def test_in_tmux_with_default_settings_it_says_tmux_drops_it_and_how_to_fix_it():
    message = clipboard_message(
        NAME, {"TMUX": "/tmp/tmux-0/default,1,0"}, tmux(set_clipboard="external", allow_passthrough="off")
    )
    assert message == (
        f"sent by OSC 52, but tmux passes it on only with set-clipboard on (set-clipboard is "
        f"external; tmux set -g set-clipboard on): {NAME}"
    )


def test_in_tmux_with_set_clipboard_on_or_passthrough_it_says_sent_through_tmux():
    environ = {"TMUX": "/tmp/tmux-0/default,1,0"}
    through = f"sent to the clipboard by OSC 52 through tmux: {NAME}"
    assert clipboard_message(NAME, environ, tmux(set_clipboard="on")) == through
    assert clipboard_message(NAME, environ, tmux(set_clipboard="external", allow_passthrough="on")) == through


def test_when_tmux_cannot_be_asked_it_says_so():
    message = clipboard_message(NAME, {"TMUX": "x"}, lambda name: None)
    assert "its set-clipboard is unknown" in message and message.endswith(NAME)
