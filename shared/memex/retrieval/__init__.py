"""Finding the memories that matter for a query: channels, fusion, scoring."""
