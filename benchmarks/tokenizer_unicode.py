"""Every assigned code point through pixiu's encoder and through `tokenizers`, in a few contexts.

Which characters the pre-tokenizer's classes (\\p{L}, \\p{N}, \\p{P}, \\p{S}, \\p{M}, \\s) hold
depends on the regex engine's Unicode tables: `tokenizers` runs the file's regexes with
Oniguruma, pixiu_cli/conversation/tokenizer/bpe.py with the `regex` package, whose tables are newer. This finds the
code points where the two encoders give different ids (after pixiu_cli/conversation/tokenizer/bpe.py's
correction: none) and prints them as ranges, the form of `bpe._NEWER_RANGES`. Private-use
code points (Co in every version) and unassigned ones (Cn in both) are skipped. About a
minute on one core; needs `tokenizers` (the test extra).

Run:  RAYON_NUM_THREADS=1 python benchmarks/tokenizer_unicode.py
"""

from __future__ import annotations

import sys

CONTEXTS = ["a{}b", " {}", "{}1", "\n{} x", "。{}", "{}{}", "{}\n"]
BATCH = 8192


def differing_code_points() -> list[int]:
    import regex
    from tokenizers import Tokenizer

    from pixiu_cli.conversation.tokenizer import counts as tokens

    rust = Tokenizer.from_file(str(tokens.tokenizer_file()))
    assigned = regex.compile(r"[\p{Assigned}--\p{Co}]", regex.V1)
    points = [c for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF and assigned.match(chr(c))]
    differ: set[int] = set()
    for start in range(0, len(points), BATCH):
        chars = [chr(c) for c in points[start : start + BATCH]]
        for context in CONTEXTS:
            texts = [context.format(c, c) for c in chars]
            for char, text, ref in zip(chars, texts, rust.encode_batch(texts, add_special_tokens=False)):
                if tokens.encode(text) != ref.ids:
                    differ.add(ord(char))
    return sorted(differ)


def as_ranges(points: list[int]) -> str:
    spans: list[list[int]] = []
    for point in points:
        if spans and spans[-1][1] == point - 1:
            spans[-1][1] = point
        else:
            spans.append([point, point])
    return " ".join(f"{a:04X}" if a == b else f"{a:04X}-{b:04X}" for a, b in spans)


def main() -> int:
    points = differing_code_points()
    print(f"{len(points)} code points differ" + (f": {as_ranges(points)}" if points else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
