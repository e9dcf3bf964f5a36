"""Cutting a text to a channel's limit: at line breaks, a line longer than the limit in pieces
that never split a character, at most five parts and a last part that says the rest is out."""

from __future__ import annotations

from pixiu_cli.brief.push.channels import SHORTENED, json_bytes, plain, split, utf8, utf16


def test_lines_are_kept_whole_and_in_order():
    text = "甲" * 10 + "\n" + "乙" * 10 + "\n" + "丙" * 10  # 30 bytes a line, 31 with its break
    parts = split(text, 61, utf8)
    # 30 + 1 + 30 = 61 bytes fit: the first two lines, then the third
    assert parts.texts == ["甲" * 10 + "\n" + "乙" * 10, "丙" * 10] and not parts.shortened


def test_a_line_longer_than_the_limit_is_cut_between_characters():
    parts = split("汉" * 10, 10, utf8)  # 30 bytes; 3 characters (9 bytes) fit in 10
    assert parts.texts == ["汉汉汉", "汉汉汉", "汉汉汉", "汉"]


def test_more_than_five_parts_are_shortened_with_a_notice_that_fits():
    parts = split("\n".join(["x" * 90] * 20), 100, utf8)  # one 90-byte line a part: 20 parts
    assert len(parts.texts) == 5 and parts.shortened
    assert parts.texts[-1].endswith(SHORTENED) and utf8(parts.texts[-1]) <= 100


def test_the_measures_count_as_the_services_do():
    assert (utf8("汉a"), utf16("汉a😀"), json_bytes('a"\n汉')) == (4, 4, 1 + 2 + 2 + 3)


def test_plain_text_drops_heading_and_bold_marks():
    assert plain("## 今天\n**结论**：持有\n# 标题") == "今天\n结论：持有\n标题"
