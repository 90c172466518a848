# make install : .venv with the `incentives` CLI (.venv/bin/incentives), dbt-core, dbt-duckdb,
#                dbt-postgres and dbt-spark[session] (pyspark)
# make run     : the example end to end, prints the summary
# make test    : installs, starts the engines, then every test (pytest: compiler, dbt unit tests,
#                end to end, differential) on DuckDB, PostgreSQL and Spark
# make engines : only starts PostgreSQL (scripts/start-postgres.sh: Debian's package, 127.0.0.1) and
#                checks Java for Spark (scripts/ensure-java.sh)
# INCENTIVES_ENGINES=duckdb make test  runs the engine tests on DuckDB only (default: all three)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

INCENTIVES_ENGINES ?= duckdb,postgres,spark
export INCENTIVES_ENGINES

.PHONY: install run test compile clean engines

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,postgres,spark,spark_thrift]"
	touch $(STAMP)

run: install
	$(BIN)/incentives run --programs examples/programs.json --data examples/data --database out/example.duckdb

compile: install
	$(BIN)/incentives compile examples/programs.json

engines:
ifneq (,$(findstring postgres,$(INCENTIVES_ENGINES)))
	scripts/start-postgres.sh
endif
ifneq (,$(findstring spark,$(INCENTIVES_ENGINES)))
	scripts/ensure-java.sh
endif

test: install engines
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) out target logs .pytest_cache .hypothesis spark
