# make install : .venv with the `incentives` CLI (.venv/bin/incentives), dbt-core, dbt-duckdb,
#                dbt-postgres, dbt-spark[session] (pyspark) and dbt-metricflow (the `mf` CLI)
# make run     : the example end to end, prints the summary (compiles it into seeds/ first, for
#                `dbt build` here too: seeds/ is not committed)
# make compile : the example compiled into seeds/ (the rule tables as dbt seeds incentives__<table>)
# make test    : installs, starts the engines, then every test (pytest: compiler, dbt unit tests,
#                end to end, differential) on DuckDB, PostgreSQL, Spark in-process and a Spark Thrift
#                server on a standalone cluster; stops the cluster it started at the end
# make engines : only starts PostgreSQL (scripts/start-postgres.sh: Debian's package, 127.0.0.1),
#                checks Java for Spark (scripts/ensure-java.sh) and starts the local Spark cluster
#                and its Thrift server (scripts/start-spark-cluster.sh; stop: scripts/stop-spark-cluster.sh)
# make test-quick : DuckDB only (INCENTIVES_ENGINES=duckdb make test), for your own loop
# INCENTIVES_ENGINES=duckdb,postgres make test  runs the engine tests on those only (default: all four)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

INCENTIVES_ENGINES ?= duckdb,postgres,spark,spark_thrift
export INCENTIVES_ENGINES
# the tests run side by side in TEST_WORKERS processes (pytest-xdist; tests/conftest.py puts Spark
# in-process in two groups of one worker each and the Thrift server's tests on one); TEST_WORKERS=0
# runs them in one;
# the slowest tests are listed at the end
TEST_WORKERS ?= 6
# the tests' Spark JVMs (in-process and the local cluster's): C1 only and the parallel collector. On
# the tests' small data most of Spark's CPU is the JIT compiling each query's generated classes and
# the concurrent collector (docs/engines.md); a run on real data keeps the JVM's defaults
test engines: export INCENTIVES_SPARK_JAVA_OPTIONS ?= -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=512m -XX:+UseParallelGC
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope --durations=40

.PHONY: install run test test-quick compile clean engines

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,postgres,spark,spark_thrift,metrics]"
	touch $(STAMP)

run: compile
	$(BIN)/incentives run --programs examples/programs.json --data examples/data --database out/example.duckdb
	$(BIN)/incentives report --database out/example.duckdb --out out/example-report.html

compile: install
	$(BIN)/incentives compile examples/programs.json

engines:
ifneq (,$(findstring postgres,$(INCENTIVES_ENGINES)))
	scripts/start-postgres.sh
endif
ifneq (,$(findstring spark,$(INCENTIVES_ENGINES)))
	scripts/ensure-java.sh
endif
ifneq (,$(findstring spark_thrift,$(INCENTIVES_ENGINES)))
	scripts/start-spark-cluster.sh
endif

# the cluster is stopped whatever pytest's outcome (pytest's exit code is make's)
test: install engines
ifneq (,$(findstring spark_thrift,$(INCENTIVES_ENGINES)))
	status=0; $(PYTEST) || status=$$?; scripts/stop-spark-cluster.sh; exit $$status
else
	$(PYTEST)
endif

test-quick: install
	INCENTIVES_ENGINES=duckdb $(PYTEST)

clean:
	rm -rf $(VENV) out target logs .pytest_cache .hypothesis spark spark-cluster
