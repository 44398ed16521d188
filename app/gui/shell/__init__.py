"""The window's top floor: the application and its main window, menus, the start page,
creating a project, organizer mode (which puts the organizer's and agreement views and the
organizer's dialogs into the window), and the hub sync with its status."""
