"""`python -m symscope.cli COMMAND ...`: the subcommands without the UI launcher."""

from symscope.cli.main import run

run()
