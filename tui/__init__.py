"""ctxscope's Textual application and command line."""
