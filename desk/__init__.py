"""The desk: a web app where organisers send their result files and see at once the report
the night will give, and the rating officer decides held competitions (``ratings serve``).

:func:`desk.app.create_app` builds the Starlette application; :func:`desk.server.serve` runs
it under uvicorn. The pre-check and the reports are the pipeline's own code, handed in by the
flow that serves the desk (:class:`desk.pipeline.Pipeline`); the decisions and accounts are
``warehouse``'s; the desk adds pages and forms, and imports no flow or task.
"""
