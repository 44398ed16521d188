"""The dialogs, one module each: new project, who is rating, imports, export, evaluation,
joining a hub."""
