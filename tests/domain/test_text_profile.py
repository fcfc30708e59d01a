from __future__ import annotations

from sheaf.domain.analysis.text_profile import profile_text
from sheaf.domain.document.document import BlockDraft, BlockKind, ListItem
from sheaf.domain.document.markdown_rendering import assemble_document


def test_profile_counts_and_spans() -> None:
    document = assemble_document([
        BlockDraft(BlockKind.HEADING, text="Results", level=2),
        BlockDraft(BlockKind.PARAGRAPH, text="Growth rose. It rose by 23 percent."),
        BlockDraft(BlockKind.LIST, items=(ListItem("First point. With two sentences."),
                                          ListItem("Second point"))),
        BlockDraft(BlockKind.TABLE, rows=(("a", "b"), ("1", "2"))),
        BlockDraft(BlockKind.QUOTE, text="Quoted words here."),
    ])
    text = document.text
    profile = profile_text(text, [(b.kind.value, b.start, b.end) for b in document.blocks])
    sentences = [text[a:b] for a, b in profile.sentences]
    assert sentences == ["Growth rose.", "It rose by 23 percent.", "First point.",
                         "With two sentences.", "Second point", "Quoted words here."]
    assert len(profile.paragraphs) == 3
    assert all(text[a:b].strip() for a, b in profile.lines)
    assert profile.as_dict(text)["first_sentence"] == "Growth rose."
    assert profile.as_dict(text)["last_sentence"] == "Quoted words here."
