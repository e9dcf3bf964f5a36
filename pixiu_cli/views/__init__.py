"""What the commands show, composed on the renderer's primitives (`render.py`): the /context
view of a stored request (`request.py`) and the tables of /context, /cache and /memory
(`presenters.py`). Shared by the REPL commands and the one-shot CLI commands."""
