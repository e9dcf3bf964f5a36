"""What every command shares, on both surfaces: the workspace a command runs on and what it
shows through (common.py), typed parameters with their Chinese refusals (params.py over
values.py), and the one-line wording of what click refuses (usage.py). The commands themselves
are plain click functions in their areas (`<area>/commands.py`); cli/root.py lists them."""
