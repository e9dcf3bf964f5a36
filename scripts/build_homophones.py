"""Write data/selection/homophones.tsv: for each character of the homophone fixer's
vocabulary (data/selection/rules/words.toml), every character pypinyin knows that reads as
it does (its usual reading, toneless, with the file's fuzzy pinyin). pixiu reads this small
file instead of importing pypinyin and its dictionary to check a typo candidate. Run it
after changing the vocabulary or its fuzzy rules, or upgrading pypinyin
(tests/selection/test_pinyin_readings.py fails until then).

    python scripts/build_homophones.py
"""

from pathlib import Path

from pixiu_cli.market.names.homophones import SOUNDS_FILE, sound_table

OUT = Path(__file__).resolve().parent.parent / "data" / "selection" / SOUNDS_FILE


def main() -> None:
    table = sound_table()
    OUT.write_text("".join(f"{ch}\t{alike}\n" for ch, alike in table.items()), encoding="utf-8")
    print(f"{len(table)} characters, {sum(map(len, table.values()))} alike → {OUT}")


if __name__ == "__main__":
    main()
