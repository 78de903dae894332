"""`python -m symscope [COMMAND | PATH]`: the same as the `symscope` command."""

from symscope.tui.launch import run

run()
