"""rooftui.views.tui.kept: an answer is made once per key, and beyond ``most`` the oldest goes."""

from rooftui.views.tui.kept import Kept


def test_an_answer_is_made_once_and_the_oldest_is_dropped_beyond_most():
    made = []

    def make(key):
        def answer():
            made.append(key)
            return f"answer {key}"

        return answer

    kept: Kept[str] = Kept(2)
    assert [kept.get(k, make(k)) for k in ("a", "b", "a", "b")] == ["answer a", "answer b"] * 2
    assert made == ["a", "b"]
    kept.get("c", make("c"))  # a third: "a", the oldest, goes
    kept.get("b", make("b"))
    kept.get("a", make("a"))
    assert made == ["a", "b", "c", "a"]
    kept.clear()
    kept.get("c", make("c"))
    assert made == ["a", "b", "c", "a", "c"]
