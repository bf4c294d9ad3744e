"""Eligibility rules, Great Expectations data-quality suites, findings and organiser reports."""
