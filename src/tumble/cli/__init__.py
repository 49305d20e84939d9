"""The `tumble` command line."""
