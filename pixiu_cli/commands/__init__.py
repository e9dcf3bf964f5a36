"""Commands declared once (commands/declaration.py): the typer command (typer_surface.py) and
the slash command (slash.py) are both generated from one declaration; catalog.py lists them."""
