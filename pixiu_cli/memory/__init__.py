"""The investor's memory: notes (views, plans, rules), alerts, the watch list, aliases and the model's proposals."""
