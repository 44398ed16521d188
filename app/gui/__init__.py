"""All Qt code: the windows, panels and models of the simrate desktop app."""
