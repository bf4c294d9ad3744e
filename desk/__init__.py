"""The desk: a web app where organisers send their result files and see at once the report
the night will give, and the rating officer decides held competitions (``ratings serve``).

:func:`desk.app.create_app` builds the Starlette application; :func:`desk.server.serve` runs
it under uvicorn. The pre-check, the inbox, the decisions and the reports are the pipeline's
own code (``flows.check``, ``tasks``, ``warehouse``); the desk adds accounts, pages and forms.
"""
