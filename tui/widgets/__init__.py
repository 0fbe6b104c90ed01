"""Widgets that render engine values: gauges, the utilization plot, tables, cards and panes."""
