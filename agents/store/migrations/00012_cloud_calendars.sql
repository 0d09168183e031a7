-- Cloud calendars (issue 15 §1): a Microsoft 365 or Google calendar read
-- with the sign-in of a mail account, and incremental syncs. A calendar
-- now names its mail account (removing the account removes its cloud
-- calendars and their events) and when it was last read whole: a sync
-- token only says what changed, so the rolling window is read whole again
-- once a day. SQLite cannot change a CHECK in place, so both tables are
-- rebuilt; the events move to a table that refers to the new calendars
-- before the old calendars go, so no cascade deletes them.

-- +goose Up
CREATE TABLE calendars_new (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT    NOT NULL CHECK (kind IN ('file', 'url', 'caldav', 'microsoft', 'google')),
    -- A file's absolute path, a subscription's https:// URL, a CalDAV
    -- calendar collection's URL, or a cloud calendar's id at its service.
    source     TEXT    NOT NULL CHECK (source <> ''),
    name       TEXT    NOT NULL DEFAULT '',
    username   TEXT    NOT NULL DEFAULT '',
    account    INTEGER REFERENCES mail_accounts (id) ON DELETE CASCADE,
    etag       TEXT    NOT NULL DEFAULT '',
    modified   TEXT    NOT NULL DEFAULT '',
    -- A CalDAV sync token, a Graph delta link or a Google sync token.
    sync_token TEXT    NOT NULL DEFAULT '',
    full_sync  INTEGER,                       -- unix ms of the last sync that read the whole window
    last_sync  INTEGER,
    last_error TEXT    NOT NULL DEFAULT '',
    error_at   INTEGER,
    created    INTEGER NOT NULL,
    CHECK ((kind IN ('microsoft', 'google')) = (account IS NOT NULL))
);
CREATE UNIQUE INDEX calendars_source ON calendars_new (kind, source, coalesce(account, 0));
INSERT INTO calendars_new (id, kind, source, name, username, etag, modified, sync_token, last_sync, last_error, error_at, created)
    SELECT id, kind, source, name, username, etag, modified, sync_token, last_sync, last_error, error_at, created FROM calendars;

CREATE TABLE calendar_events_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    calendar_id   INTEGER NOT NULL REFERENCES calendars_new (id) ON DELETE CASCADE,
    uid           TEXT    NOT NULL CHECK (uid <> ''),
    recurrence_id TEXT    NOT NULL DEFAULT '',
    href          TEXT    NOT NULL DEFAULT '', -- CalDAV object path; a cloud event's id
    etag          TEXT    NOT NULL DEFAULT '',
    starts        INTEGER NOT NULL,
    ends          INTEGER NOT NULL,
    zone          TEXT    NOT NULL DEFAULT '',
    until         INTEGER,
    all_day       INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1)),
    recurring     INTEGER NOT NULL DEFAULT 0 CHECK (recurring IN (0, 1)),
    summary       TEXT    NOT NULL DEFAULT '',
    location      TEXT    NOT NULL DEFAULT '',
    organizer     TEXT    NOT NULL DEFAULT '',
    attendees     TEXT    NOT NULL DEFAULT '[]'
        CHECK (json_valid(attendees) AND json_type(attendees) = 'array'),
    status        TEXT    NOT NULL DEFAULT '',
    transparent   INTEGER NOT NULL DEFAULT 0 CHECK (transparent IN (0, 1)),
    sequence      INTEGER NOT NULL DEFAULT 0,
    raw           TEXT    NOT NULL,
    UNIQUE (calendar_id, uid, recurrence_id)
);
INSERT INTO calendar_events_new SELECT * FROM calendar_events;

-- Keep the ids handed out so far: a removed calendar's id is not reused.
DELETE FROM sqlite_sequence WHERE name IN ('calendars_new', 'calendar_events_new');
INSERT INTO sqlite_sequence (name, seq) SELECT 'calendars_new', seq FROM sqlite_sequence WHERE name = 'calendars';
INSERT INTO sqlite_sequence (name, seq) SELECT 'calendar_events_new', seq FROM sqlite_sequence WHERE name = 'calendar_events';

DROP TABLE calendar_events;
DROP TABLE calendars;
ALTER TABLE calendars_new RENAME TO calendars;
ALTER TABLE calendar_events_new RENAME TO calendar_events;
CREATE INDEX calendar_events_window ON calendar_events (until, starts);
CREATE INDEX calendar_events_href ON calendar_events (calendar_id, href);

-- +goose Down
CREATE TABLE calendars_old (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT    NOT NULL CHECK (kind IN ('file', 'url', 'caldav')),
    source     TEXT    NOT NULL CHECK (source <> ''),
    name       TEXT    NOT NULL DEFAULT '',
    username   TEXT    NOT NULL DEFAULT '',
    etag       TEXT    NOT NULL DEFAULT '',
    modified   TEXT    NOT NULL DEFAULT '',
    sync_token TEXT    NOT NULL DEFAULT '',
    last_sync  INTEGER,
    last_error TEXT    NOT NULL DEFAULT '',
    error_at   INTEGER,
    created    INTEGER NOT NULL,
    UNIQUE (kind, source)
);
INSERT INTO calendars_old (id, kind, source, name, username, etag, modified, sync_token, last_sync, last_error, error_at, created)
    SELECT id, kind, source, name, username, etag, modified, sync_token, last_sync, last_error, error_at, created
    FROM calendars WHERE kind IN ('file', 'url', 'caldav');
CREATE TABLE calendar_events_old (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    calendar_id   INTEGER NOT NULL REFERENCES calendars_old (id) ON DELETE CASCADE,
    uid           TEXT    NOT NULL CHECK (uid <> ''),
    recurrence_id TEXT    NOT NULL DEFAULT '',
    href          TEXT    NOT NULL DEFAULT '',
    etag          TEXT    NOT NULL DEFAULT '',
    starts        INTEGER NOT NULL,
    ends          INTEGER NOT NULL,
    zone          TEXT    NOT NULL DEFAULT '',
    until         INTEGER,
    all_day       INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1)),
    recurring     INTEGER NOT NULL DEFAULT 0 CHECK (recurring IN (0, 1)),
    summary       TEXT    NOT NULL DEFAULT '',
    location      TEXT    NOT NULL DEFAULT '',
    organizer     TEXT    NOT NULL DEFAULT '',
    attendees     TEXT    NOT NULL DEFAULT '[]'
        CHECK (json_valid(attendees) AND json_type(attendees) = 'array'),
    status        TEXT    NOT NULL DEFAULT '',
    transparent   INTEGER NOT NULL DEFAULT 0 CHECK (transparent IN (0, 1)),
    sequence      INTEGER NOT NULL DEFAULT 0,
    raw           TEXT    NOT NULL,
    UNIQUE (calendar_id, uid, recurrence_id)
);
INSERT INTO calendar_events_old SELECT e.* FROM calendar_events e JOIN calendars_old c ON c.id = e.calendar_id;
DROP TABLE calendar_events;
DROP TABLE calendars;
ALTER TABLE calendars_old RENAME TO calendars;
ALTER TABLE calendar_events_old RENAME TO calendar_events;
CREATE INDEX calendar_events_window ON calendar_events (until, starts);
