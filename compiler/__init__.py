"""Incentive engine compiler: GET /programs JSON -> relational rule tables for the dbt project."""

__version__ = "0.1.0"
