"""Who said a memory, as SQL over a memories row `{m}`: read by the listing of a user's speakers and
the search's speaker columns (memories.py)."""

# A memory's speaker: the name of who said it (an episodic memory's message name), else the
# participant a fact is about; NULL for the user's facts and unnamed messages. With its subject
# ("user", or a participant's name), the speaker cue's columns.
SPEAKER_NAME = "coalesce({m}.metadata->>'name', nullif({m}.subject, 'user'))"  # indexed (0019): ahead
# Whether a memory with a SPEAKER_NAME is the user's own message said under that name (a role-user
# message of the user's, not another participant's, nor the assistant's); indexed with it (0019).
USER_SAID = "({m}.subject = 'user' AND coalesce({m}.metadata->>'role', '') = 'user')"
