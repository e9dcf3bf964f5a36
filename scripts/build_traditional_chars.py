"""Write data/selection/traditional_chars.txt: every character OpenCC's t2s conversion
changes. pixiu reads this small file to decide whether a message needs OpenCC at all, so
the converter (and its dictionaries) is only loaded for text that has traditional
characters.

    python scripts/build_traditional_chars.py      (needs opencc-python-reimplemented)
"""

from pathlib import Path

from opencc import OpenCC

OUT = Path(__file__).resolve().parent.parent / "data" / "selection" / "traditional_chars.txt"


def main() -> None:
    import opencc

    converter = OpenCC("t2s")
    dictionary = Path(opencc.__file__).parent / "dictionary" / "TSCharacters.txt"
    chars = set()
    for line in dictionary.read_text(encoding="utf-8").splitlines():
        key = line.split("\t", 1)[0]
        if len(key) == 1 and converter.convert(key) != key:
            chars.add(key)
    OUT.write_text("".join(sorted(chars)) + "\n", encoding="utf-8")
    print(f"{len(chars)} characters → {OUT}")


if __name__ == "__main__":
    main()
