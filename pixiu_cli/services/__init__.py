"""The use cases more than one surface calls (the CLI, the REPL's slash commands, the agent's
tools): each is one function here that takes and returns data classes and never prints. The
surfaces parse their input, call one of these and render what it returns."""
