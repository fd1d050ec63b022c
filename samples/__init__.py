"""samples."""
