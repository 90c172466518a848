"""The program model: typed GET /programs JSON (models.py: the building blocks; base.py: a
qualification, an offer, a program; catalogue.py: the programs, their offers typed by strategy) and
the qualifier parser (qualifier.py)."""
