"""What users see: text (rich tables, CSV, JSON) and the Textual app (``tui``)."""
