"""Prompt-cache accounting: what each call hit and missed in the provider's prompt cache, why
a call missed (`explain.py`), what it cost (`prices.py`) and the /cache report (`report.py`)."""
