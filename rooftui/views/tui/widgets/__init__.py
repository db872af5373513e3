"""The explorer's widgets: roofline, kernel table, filter bar, detail pane."""
