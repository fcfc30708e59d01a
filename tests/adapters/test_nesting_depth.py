"""The pre-parse nesting estimate: the same depth as a plain model of the parser's stack,
whatever mix of start tags, end tags that close several elements, and end tags that
close nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.adapters.html.nesting_depth import estimated_depth

_NAMES = ["div", "b", "span", "section", "em"]


def _model_depth(tags: list[tuple[bool, str]]) -> int:
    stack: list[str] = []
    peak = 0
    for closing, name in tags:
        if not closing:
            stack.append(name)
            peak = max(peak, len(stack))
        elif name in stack:
            while stack.pop() != name:
                pass
    return peak


@given(st.lists(st.tuples(st.booleans(), st.sampled_from(_NAMES)), max_size=200))
def test_depth_matches_a_model_of_the_open_element_stack(tags: list[tuple[bool, str]]) -> None:
    body = "".join(f"<{'/' if closing else ''}{name}>text" for closing, name in tags)
    assert estimated_depth(body.encode()) == _model_depth(tags)


def test_stray_end_tags_under_a_deep_stack_close_nothing() -> None:
    body = b"<div>" * 500 + b"</i>" * 10_000 + b"<b>" + b"</div>" * 500
    assert estimated_depth(body) == 501
