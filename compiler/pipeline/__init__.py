"""The pipeline of a run: compile, load, validate data, build, swap, record."""
