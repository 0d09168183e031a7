-- Reminders tied to a moment rather than a time (issue 15 §4): "next time
-- I'm in Marcy's email", "when I open the Brookline NDA", "next time I talk
-- to Grant". Such a reminder waits in the new state 'waiting' with no due
-- time, and its trigger in four columns; it fires once, when the moment
-- comes, and is then an ordinary fired reminder whose due is that moment.
-- SQLite cannot change a CHECK in place, so the table is rebuilt; nothing
-- refers to reminders by foreign key (commitments keep plain ids).

-- +goose Up
CREATE TABLE reminders_new (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    created    INTEGER NOT NULL,
    task       TEXT    NOT NULL CHECK (trim(task) <> ''),
    due        INTEGER,
    anchor     INTEGER,
    every      TEXT    NOT NULL DEFAULT '' CHECK (every IN ('', 'day', 'weekday', 'week')),
    utc_offset INTEGER NOT NULL CHECK (utc_offset BETWEEN -1080 AND 1080),
    zone       TEXT    NOT NULL DEFAULT '',
    state      TEXT    NOT NULL CHECK (state IN ('pending', 'awaiting_time', 'waiting', 'fired', 'done', 'cancelled')),
    fired_at   INTEGER,
    fire_count INTEGER NOT NULL DEFAULT 0 CHECK (fire_count >= 0),
    nudge_id   INTEGER REFERENCES nudges (id),
    updated    INTEGER NOT NULL,
    -- The moment a 'waiting' reminder waits for: 'thread' (a mail thread
    -- with that person and/or subject words comes on screen), 'app' (an
    -- app or window whose name or title has those words comes to the
    -- front) or 'person' (15 minutes before a meeting with that person).
    -- Kept after firing, for the Reminders window and the world log.
    trigger_kind    TEXT NOT NULL DEFAULT '' CHECK (trigger_kind IN ('', 'thread', 'app', 'person')),
    trigger_person  TEXT NOT NULL DEFAULT '',
    trigger_subject TEXT NOT NULL DEFAULT '',
    trigger_name    TEXT NOT NULL DEFAULT '',

    CHECK (CASE state
        WHEN 'awaiting_time' THEN due IS NULL
        WHEN 'waiting' THEN due IS NULL AND trigger_kind <> ''
        WHEN 'pending' THEN due IS NOT NULL
        WHEN 'fired' THEN due IS NOT NULL
        ELSE 1 END),
    CHECK (anchor IS NULL OR every <> ''),
    CHECK (every = '' OR due IS NULL OR anchor IS NOT NULL),
    CHECK (state <> 'fired' OR (every = '' AND nudge_id IS NOT NULL)),
    CHECK ((fire_count = 0) = (fired_at IS NULL)),
    CHECK (nudge_id IS NULL OR fire_count > 0),
    -- A trigger fires once: it is never recurring, and it says what to watch.
    CHECK (trigger_kind = '' OR every = ''),
    CHECK (trigger_kind <> 'thread' OR trigger_person <> '' OR trigger_subject <> ''),
    CHECK (trigger_kind <> 'app' OR trigger_name <> ''),
    CHECK (trigger_kind <> 'person' OR trigger_person <> '')
);
INSERT INTO reminders_new (id, created, task, due, anchor, every, utc_offset, zone, state,
        fired_at, fire_count, nudge_id, updated)
    SELECT id, created, task, due, anchor, every, utc_offset, zone, state,
        fired_at, fire_count, nudge_id, updated FROM reminders;
DROP INDEX reminders_nudge;
DROP INDEX reminders_due;
DROP TABLE reminders;
ALTER TABLE reminders_new RENAME TO reminders;
CREATE INDEX reminders_due ON reminders (state, due);
CREATE UNIQUE INDEX reminders_nudge ON reminders (nudge_id) WHERE nudge_id IS NOT NULL;
-- The watchers ask for the waiting reminders of their kind.
CREATE INDEX reminders_waiting ON reminders (trigger_kind) WHERE state = 'waiting';

-- +goose Down
CREATE TABLE reminders_old (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    created    INTEGER NOT NULL,
    task       TEXT    NOT NULL CHECK (trim(task) <> ''),
    due        INTEGER,
    anchor     INTEGER,
    every      TEXT    NOT NULL DEFAULT '' CHECK (every IN ('', 'day', 'weekday', 'week')),
    utc_offset INTEGER NOT NULL CHECK (utc_offset BETWEEN -1080 AND 1080),
    zone       TEXT    NOT NULL DEFAULT '',
    state      TEXT    NOT NULL CHECK (state IN ('pending', 'awaiting_time', 'fired', 'done', 'cancelled')),
    fired_at   INTEGER,
    fire_count INTEGER NOT NULL DEFAULT 0 CHECK (fire_count >= 0),
    nudge_id   INTEGER REFERENCES nudges (id),
    updated    INTEGER NOT NULL,
    CHECK (CASE state
        WHEN 'awaiting_time' THEN due IS NULL
        WHEN 'pending' THEN due IS NOT NULL
        WHEN 'fired' THEN due IS NOT NULL
        ELSE 1 END),
    CHECK (anchor IS NULL OR every <> ''),
    CHECK (every = '' OR due IS NULL OR anchor IS NOT NULL),
    CHECK (state <> 'fired' OR (every = '' AND nudge_id IS NOT NULL)),
    CHECK ((fire_count = 0) = (fired_at IS NULL)),
    CHECK (nudge_id IS NULL OR fire_count > 0)
);
-- A reminder still waiting for its moment has no time the old schema can
-- hold: it goes back to waiting for a time, with the moment in its task.
INSERT INTO reminders_old (id, created, task, due, anchor, every, utc_offset, zone, state,
        fired_at, fire_count, nudge_id, updated)
    SELECT id, created,
        CASE WHEN state = 'waiting' THEN task || ' (' || trigger_kind || ': ' ||
            trim(trigger_person || ' ' || trigger_subject || ' ' || trigger_name) || ')' ELSE task END,
        due, anchor, every, utc_offset, zone,
        CASE WHEN state = 'waiting' THEN 'awaiting_time' ELSE state END,
        fired_at, fire_count, nudge_id, updated FROM reminders;
DROP INDEX reminders_waiting;
DROP INDEX reminders_nudge;
DROP INDEX reminders_due;
DROP TABLE reminders;
ALTER TABLE reminders_old RENAME TO reminders;
CREATE INDEX reminders_due ON reminders (state, due);
CREATE UNIQUE INDEX reminders_nudge ON reminders (nudge_id) WHERE nudge_id IS NOT NULL;
