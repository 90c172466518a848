"""Compile: GET /programs JSON -> rule tables (parse.py, validation/, generate.py, write.py; the
stages put together: programs.py)."""
