"""Context accounting: windows, the gauge, context building, token counting and measuring, the timeline."""
