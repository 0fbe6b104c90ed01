"""Text shown to a person: values from sessions and agent configs made safe for a terminal (docs/hostile-input.md)."""
