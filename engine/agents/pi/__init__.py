"""pi (pi-coding-agent): its session files, settings.json and models.json (docs/pi.md)."""
