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

run: $(STAMP)
	$(BIN)/symscope $(or $(REPO),.)

test: $(STAMP)
	$(BIN)/python -m ruff check core tui tests benchmarks
	$(BIN)/python -m mypy core tui
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/python -m ruff check core tui tests benchmarks

typecheck: $(STAMP)
	$(BIN)/python -m mypy core tui

bench: $(STAMP)
	$(BIN)/python -m benchmarks $(CORPORA)

screenshots: $(STAMP)
	$(BIN)/python -m screenshots.make

clean:
	rm -rf $(VENV) build *.egg-info
