"""The program model: typed GET /programs JSON (models.py) and the qualifier parser (qualifier.py)."""
