# make install : .venv with the `incentives` CLI (.venv/bin/incentives), dbt-core and dbt-duckdb
# make run     : the example end to end, prints the summary
# make test    : installs, then every test (pytest: compiler, dbt unit tests, end to end, differential)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install run test compile clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: install
	$(BIN)/incentives run --programs examples/programs.json --data examples/data --database out/example.duckdb

compile: install
	$(BIN)/incentives compile examples/programs.json

test: install
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) out target logs .pytest_cache .hypothesis
