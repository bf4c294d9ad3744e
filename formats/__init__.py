"""Readers: a federation's file bytes -> the canonical frames of :mod:`formats.schema`. No Prefect, no database."""
