"""symscope's command line: `symscope <command>`, a thin, script-friendly face over `symscope.core.api`."""
