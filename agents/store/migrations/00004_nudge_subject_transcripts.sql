-- +goose Up
-- What a nudge is about ("reminder:12"), so an answer reaches the right thing.
ALTER TABLE nudges ADD COLUMN subject TEXT NOT NULL DEFAULT '';
CREATE INDEX nudges_subject ON nudges(subject) WHERE subject <> '';

-- What Spirit heard. Kept apart from the append-only world log because the
-- lawyer's words are deleted after a retention period (7 days by default).
CREATE TABLE transcripts (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    ts      INTEGER NOT NULL,            -- unix ms, end of the utterance
    text    TEXT    NOT NULL,
    intent  TEXT    NOT NULL DEFAULT '', -- the parsed intent kind
    source  TEXT    NOT NULL DEFAULT 'voice'
);
CREATE INDEX transcripts_ts ON transcripts(ts);

-- +goose Down
DROP TABLE transcripts;
DROP INDEX nudges_subject;
ALTER TABLE nudges DROP COLUMN subject;
