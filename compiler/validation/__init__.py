"""Validation of programs JSON: what a rule is given (context.py: the program, offer or
qualification and where it is), pydantic's errors and the shared checks as located issues
(locate.py), the rules and their list (rules.py; a strategy's own checks are in its module of
compiler/strategies/) and the validation that runs them all (check.py)."""
