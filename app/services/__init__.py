"""Work that joins the core and the formats: importing and exporting files, previews,
evaluation and the dataset folder; the command line and the window both call these."""
