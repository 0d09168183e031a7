-- Commitments heard in calls (package voice/commit): what the lawyer said
-- they would do, with the words it was heard in. Transcripts are deleted
-- after their retention period; a commitment keeps its words so the
-- lawyer can see why Spirit lists or offers it.

-- +goose Up
CREATE TABLE commitments (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    -- commit.Commitment.Key: the same task with the same deadline has the
    -- same key whenever it is said, so one promise is one row.
    key      TEXT    NOT NULL UNIQUE CHECK (key <> ''),
    task     TEXT    NOT NULL CHECK (trim(task) <> ''),
    words    TEXT    NOT NULL DEFAULT '',
    heard    INTEGER NOT NULL,                   -- unix ms, end of the utterance
    deadline INTEGER,                            -- unix ms; NULL: no time was said
    -- open: waits in the Reminders window (no time, or a reminder was not
    -- offered); offered: a bubble offers a reminder; reminded: a reminder
    -- was set; done, dismissed, superseded (said again with a time).
    state    TEXT    NOT NULL DEFAULT 'open'
             CHECK (state IN ('open', 'offered', 'reminded', 'done', 'dismissed', 'superseded')),
    -- Plain ids, not foreign keys: a reminder may be deleted in the
    -- Reminders window, and the commitment is still what was said.
    reminder INTEGER,
    nudge    INTEGER,
    created  INTEGER NOT NULL,
    updated  INTEGER NOT NULL,
    CHECK (state <> 'reminded' OR reminder IS NOT NULL)
);
-- The Reminders window's list.
CREATE INDEX commitments_open ON commitments (heard) WHERE state = 'open';

-- +goose Down
DROP INDEX commitments_open;
DROP TABLE commitments;
