"""Facts about models that do not depend on any session: windows and list prices (docs/models.md)."""
