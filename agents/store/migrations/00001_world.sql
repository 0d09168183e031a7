-- The world log: everything Spirit saw, heard or did, append-only.

-- +goose Up
-- 'SPRT' in the file header lets Open tell a Spirit database from any
-- other SQLite file without guessing from table names.
PRAGMA application_id = 1397772884;

CREATE TABLE world (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- AUTOINCREMENT: ids are never reused, so cursors stay valid
    ts         INTEGER NOT NULL,                  -- unix milliseconds
    kind       TEXT    NOT NULL CHECK (kind IN ('event', 'agent')),
    source     TEXT,                              -- events only
    identifier TEXT,                              -- events only
    status     TEXT CHECK (status IS NULL OR status IN ('start', 'active', 'finish', 'verified', 'retry', 'failed')),
    session    TEXT,                              -- agent records only
    text       TEXT    NOT NULL DEFAULT '',
    need       TEXT,                              -- agent records only
    CHECK (
        (kind = 'event' AND source IS NOT NULL AND source <> '' AND identifier IS NOT NULL
            AND status IS NULL AND session IS NULL AND need IS NULL)
        OR
        (kind = 'agent' AND status IS NOT NULL AND session IS NOT NULL AND session <> ''
            AND source IS NULL AND identifier IS NULL AND need IS NOT NULL)
    )
);

-- RecentEvents walks this backwards; the rowid is implicitly the second key.
CREATE INDEX world_kind ON world (kind);

-- +goose StatementBegin
CREATE TRIGGER world_no_update BEFORE UPDATE ON world
BEGIN
    SELECT RAISE(ABORT, 'world log is append-only: rows cannot be updated');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER world_no_delete BEFORE DELETE ON world
BEGIN
    SELECT RAISE(ABORT, 'world log is append-only: rows cannot be deleted');
END;
-- +goose StatementEnd

-- Latest state per agent session, written in the same transaction as the
-- agent record so it can never disagree with the log.
CREATE TABLE agents (
    session    TEXT    PRIMARY KEY NOT NULL CHECK (session <> ''),
    status     TEXT    NOT NULL CHECK (status IN ('start', 'active', 'finish', 'verified', 'retry', 'failed')),
    text       TEXT    NOT NULL DEFAULT '',
    need       TEXT    NOT NULL DEFAULT '',
    started    INTEGER NOT NULL,
    updated    INTEGER NOT NULL,
    last_entry INTEGER NOT NULL REFERENCES world (id)
);

CREATE INDEX agents_status ON agents (status, updated);

-- Where each consumer of the log has read up to.
CREATE TABLE cursors (
    consumer TEXT    PRIMARY KEY NOT NULL CHECK (consumer <> ''),
    last_id  INTEGER NOT NULL DEFAULT 0 CHECK (last_id >= 0)
);

-- +goose Down
DROP TABLE cursors;
DROP TABLE agents;
DROP TRIGGER world_no_delete;
DROP TRIGGER world_no_update;
DROP TABLE world;
PRAGMA application_id = 0;
