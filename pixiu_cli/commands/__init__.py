"""Commands declared once. A declaration (declaration.py) names the command (a path for a
subcommand), its Chinese summary, its typed parameters (values.py), the request type they
fill by name, the one service call `(ctx, request) → result`, the one view
`(renderer, result, spell)` in views/, the --json document, and its surfaces. From it
typer_surface.py builds `pixiu …` and slash.py builds `/…` (parsing, usage, completion);
catalog.py lists every declaration; cli/declared.py and repl/declared_commands.py register
them. To add a command: write its request dataclass and call in a module here, its view in
views/, add its DECLARED entries to catalog.py, and name its top word in the cli module's
`declared.register(app, (...))` where `pixiu --help` should list it."""
