"""`python -m symscope.tui [PATH]`: the same as the `symscope` command."""

from symscope.tui.launch import run

run()
