"""The Textual explorer: ``make_app`` builds it for the CLI and the tests."""
