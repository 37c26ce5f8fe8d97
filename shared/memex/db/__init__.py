"""Postgres access: connections, migrations and the data-access modules."""
