"""The screens: session list, session view and help."""
