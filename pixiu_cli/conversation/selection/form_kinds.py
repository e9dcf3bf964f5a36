"""The kinds of the investor's own forms (selection/forms.py generates them), shown by
``--explain``: a module of their own, so the name table (selection/names.py) can tell a kind
without importing the generator."""

from __future__ import annotations

FIRST_TWO, LAST_TWO, INITIALS, AFFIX = "前两字", "后两字", "首字缩写", "去掉前后缀"
EACH_WORD = "每词一字"
FIRST_TWO_OF_THREE, LAST_TWO_OF_THREE = "三字名前两字", "三字名后两字"
PINYIN, PINYIN_INITIALS = "拼音", "拼音首字母"
