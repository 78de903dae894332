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

# mypy resolves `symscope.core` through a link tree, since the folders are named core/ and tui/;
# every module is named explicitly because mypy does not walk symlinked folders.
TYPECHECK_TREE := build/typecheck
MYPY_MODULES = $(shell find core tui -name '*.py' -not -path '*/__pycache__/*' | sed -e 's|/__init__\.py$$||' -e 's|\.py$$||' -e 's|/|.|g' -e 's|^|-m symscope.|')
MYPY = mkdir -p $(TYPECHECK_TREE)/symscope && ln -sfn $(CURDIR)/core $(TYPECHECK_TREE)/symscope/core \
	&& ln -sfn $(CURDIR)/tui $(TYPECHECK_TREE)/symscope/tui \
	&& MYPYPATH=$(TYPECHECK_TREE) $(BIN)/python -m mypy $(MYPY_MODULES)

test: $(STAMP)
	$(BIN)/python -m ruff check core tui tests benchmarks
	$(MYPY)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/python -m ruff check core tui tests benchmarks

typecheck: $(STAMP)
	$(MYPY)

bench: $(STAMP)
	$(BIN)/python -m benchmarks $(CORPORA)
	$(BIN)/python -m benchmarks.charts

screenshots: $(STAMP)
	$(BIN)/python -m screenshots.make

clean:
	rm -rf $(VENV) build *.egg-info
