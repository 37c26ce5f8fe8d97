"""A companion app's evening: many users chatting at once for minutes, measured as a user of the
memory sees it (how soon a fact said is found, and that nothing said is lost or doubled)."""
