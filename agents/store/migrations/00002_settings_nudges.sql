-- Settings the lawyer changes in the tray, and the nudges Spirit shows.

-- +goose Up
CREATE TABLE settings (
    key     TEXT    PRIMARY KEY NOT NULL CHECK (key <> ''),
    value   TEXT    NOT NULL,
    updated INTEGER NOT NULL -- unix milliseconds
);

CREATE TABLE nudges (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    created       INTEGER NOT NULL, -- unix milliseconds
    kind          TEXT    NOT NULL CHECK (kind <> ''),
    message       TEXT    NOT NULL CHECK (message <> ''),
    action_prompt TEXT    NOT NULL DEFAULT '',
    state         TEXT    NOT NULL DEFAULT 'shown'
                  CHECK (state IN ('shown', 'accepted', 'dismissed', 'snoozed', 'expired')),
    answer        TEXT    NOT NULL DEFAULT '',
    updated       INTEGER NOT NULL
);

-- Nudges(states...) filters by state, newest first; the rowid is the second key.
CREATE INDEX nudges_state ON nudges (state);

-- Accepted, dismissed and expired are final; the store checks this too, the
-- trigger keeps any other writer honest.
-- +goose StatementBegin
CREATE TRIGGER nudges_closed BEFORE UPDATE OF state ON nudges
WHEN OLD.state NOT IN ('shown', 'snoozed')
BEGIN
    SELECT RAISE(ABORT, 'nudge is closed');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER nudges_closed;
DROP TABLE nudges;
DROP TABLE settings;
