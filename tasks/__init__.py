"""Prefect tasks, one per stage step: thin wrappers that add retries, logging and artifacts."""
