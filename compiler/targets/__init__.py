"""The engines a run builds on (DuckDB, PostgreSQL, Spark, a Spark Thrift server)."""
