"""The web rating page (`simrate serve`): crowd workers rate a study's tasks in a browser.

Needs the `web` extra (Starlette, uvicorn, Jinja2). Templates and static files live beside
this module and ship inside the wheel as package data.
"""
