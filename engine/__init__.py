"""Rating systems (BARRUF, FIDE Elo, EGF GoR) as effective-dated rule sets. No IO, no Prefect, no SQL."""
