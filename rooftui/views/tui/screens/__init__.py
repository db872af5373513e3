"""Full screens of the explorer: the main view, summary, help and small dialogs."""
