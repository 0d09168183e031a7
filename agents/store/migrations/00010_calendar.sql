-- The lawyer's calendars (package calendar), read-only: where each comes
-- from and how far its sync got, and the events last read from it. Events
-- keep their iCalendar text so that recurrence is expanded again for any
-- window; the other columns are what lists and queries read.

-- +goose Up
CREATE TABLE calendars (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT    NOT NULL CHECK (kind IN ('file', 'url', 'caldav')),
    -- A file's absolute path, a subscription's https:// URL, or a CalDAV
    -- calendar collection's URL.
    source     TEXT    NOT NULL CHECK (source <> ''),
    name       TEXT    NOT NULL DEFAULT '',
    username   TEXT    NOT NULL DEFAULT '',   -- CalDAV; the password lives in the keychain
    -- What the next sync sends to skip an unchanged source: an ETag
    -- (subscriptions, CalDAV ctag) and Last-Modified, or a sync token.
    etag       TEXT    NOT NULL DEFAULT '',
    modified   TEXT    NOT NULL DEFAULT '',
    sync_token TEXT    NOT NULL DEFAULT '',
    last_sync  INTEGER,                       -- unix ms of the last sync that succeeded
    last_error TEXT    NOT NULL DEFAULT '',   -- the last sync's error, '' after a success
    error_at   INTEGER,                       -- unix ms of that error
    created    INTEGER NOT NULL,
    UNIQUE (kind, source)
);

-- One row per VEVENT: a series (recurrence_id '') or one override of it.
CREATE TABLE calendar_events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    calendar_id   INTEGER NOT NULL REFERENCES calendars (id) ON DELETE CASCADE,
    uid           TEXT    NOT NULL CHECK (uid <> ''),
    recurrence_id TEXT    NOT NULL DEFAULT '', -- RFC 3339 original start of an override; '' for the series
    href          TEXT    NOT NULL DEFAULT '', -- CalDAV object path
    etag          TEXT    NOT NULL DEFAULT '', -- CalDAV object ETag
    starts        INTEGER NOT NULL,            -- unix ms of DTSTART (the first occurrence)
    ends          INTEGER NOT NULL,            -- unix ms of its end
    zone          TEXT    NOT NULL DEFAULT '', -- TZID, '' for UTC, 'floating' for floating times and dates
    until         INTEGER,                     -- unix ms after which no occurrence starts; NULL: no end
    all_day       INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1)),
    recurring     INTEGER NOT NULL DEFAULT 0 CHECK (recurring IN (0, 1)),
    summary       TEXT    NOT NULL DEFAULT '',
    location      TEXT    NOT NULL DEFAULT '',
    organizer     TEXT    NOT NULL DEFAULT '', -- lower-case address
    attendees     TEXT    NOT NULL DEFAULT '[]' -- JSON [{email, name, partstat, role}]
        CHECK (json_valid(attendees) AND json_type(attendees) = 'array'),
    status        TEXT    NOT NULL DEFAULT '',
    transparent   INTEGER NOT NULL DEFAULT 0 CHECK (transparent IN (0, 1)),
    sequence      INTEGER NOT NULL DEFAULT 0,
    raw           TEXT    NOT NULL,            -- a VCALENDAR with this VEVENT and the VTIMEZONEs it uses
    UNIQUE (calendar_id, uid, recurrence_id)
);
-- Upcoming: events that may have an occurrence in a window.
CREATE INDEX calendar_events_window ON calendar_events (until, starts);

-- +goose Down
DROP TABLE calendar_events;
DROP TABLE calendars;
