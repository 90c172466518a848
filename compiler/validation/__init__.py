"""Validation of programs JSON: located issues (locate.py), the registry of rules (registry.py), the
rules (rules.py; a strategy's own checks are in its module of compiler/strategies/) and the
validation that runs them all (check.py)."""
