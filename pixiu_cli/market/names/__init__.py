"""How a stock is named: its full and short names, the forms people write (short forms, typos, homophones), the segmenter's words, and the name table built from the security list."""
