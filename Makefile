# Two commands set up everything: `make run` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORPORA ?= benchmarks/corpora

.PHONY: run test lint typecheck bench screenshots clean index

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# $(PWD) is where make was called from, also under `make -C`: `s` saves the bundle there.
run: $(STAMP)
	SYMSCOPE_START_DIR='$(PWD)' $(BIN)/symscope $(or $(REPO),.)

# The engine (core/) and its faces (tui/, cli/, mcp_server/) are top-level folders installed as
# symscope.<folder>; symscope/ itself holds only `python -m symscope`.
PACKAGES := core tui cli mcp_server
LINT_PATHS := $(PACKAGES) symscope tests benchmarks

# mypy resolves `symscope.core` through a link tree, since the folders are named core/, tui/, ...;
# every module is named explicitly because mypy does not walk symlinked folders.
TYPECHECK_TREE := build/typecheck
MYPY_MODULES = -m symscope -m symscope.__main__ $(shell find $(PACKAGES) -name '*.py' -not -path '*/__pycache__/*' | sed -e 's|/__init__\.py$$||' -e 's|\.py$$||' -e 's|/|.|g' -e 's|^|-m symscope.|')
MYPY = mkdir -p $(TYPECHECK_TREE)/symscope \
	&& for f in __init__.py __main__.py; do ln -sfn $(CURDIR)/symscope/$$f $(TYPECHECK_TREE)/symscope/$$f; done \
	&& for p in $(PACKAGES); do ln -sfn $(CURDIR)/$$p $(TYPECHECK_TREE)/symscope/$$p; done \
	&& MYPYPATH=$(TYPECHECK_TREE) $(BIN)/python -m mypy $(MYPY_MODULES)

test: $(STAMP)
	$(BIN)/python -m ruff check $(LINT_PATHS)
	$(MYPY)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/python -m ruff check $(LINT_PATHS)

typecheck: $(STAMP)
	$(MYPY)

bench: $(STAMP)
	$(BIN)/python -m benchmarks $(CORPORA)
	$(BIN)/python -m benchmarks.charts

# Pictures of gin at its pinned commit (refused, with how to get it, if $(CORPORA)/gin is not that);
# `$(BIN)/python -m screenshots.make --sample` is a quick run on the fixture repo.
screenshots: $(STAMP)
	$(BIN)/python -m screenshots.make --repo $(CORPORA)/gin

clean:
	rm -rf $(VENV) build *.egg-info
