-- Reminders the lawyer asked for, and where each one stands.

-- +goose Up
CREATE TABLE reminders (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    created    INTEGER NOT NULL,                        -- unix milliseconds
    task       TEXT    NOT NULL CHECK (trim(task) <> ''),
    due        INTEGER,                                 -- unix ms of the next firing; NULL while Spirit still has to ask when
    anchor     INTEGER,                                 -- recurring only: the occurrence whose wall-clock time the series keeps
    every      TEXT    NOT NULL DEFAULT '' CHECK (every IN ('', 'day', 'weekday', 'week')),
    utc_offset INTEGER NOT NULL CHECK (utc_offset BETWEEN -1080 AND 1080), -- minutes east of UTC at anchor, due or creation
    zone       TEXT    NOT NULL DEFAULT '',              -- IANA zone name if known; trusted only while it agrees with utc_offset
    state      TEXT    NOT NULL CHECK (state IN ('pending', 'awaiting_time', 'fired', 'done', 'cancelled')),
    fired_at   INTEGER,                                 -- unix ms of the latest firing
    fire_count INTEGER NOT NULL DEFAULT 0 CHECK (fire_count >= 0),
    nudge_id   INTEGER REFERENCES nudges (id),           -- the nudge of the latest firing
    updated    INTEGER NOT NULL,

    -- Only a reminder still waiting for its time may lack one; closed ones
    -- keep whatever they had.
    CHECK (CASE state
        WHEN 'awaiting_time' THEN due IS NULL
        WHEN 'pending' THEN due IS NOT NULL
        WHEN 'fired' THEN due IS NOT NULL
        ELSE 1 END),
    -- The anchor belongs to recurring reminders, and every scheduled one has it.
    CHECK (anchor IS NULL OR every <> ''),
    CHECK (every = '' OR due IS NULL OR anchor IS NOT NULL),
    -- A recurring reminder never rests in 'fired': firing moves it to its
    -- next occurrence in the same transaction.
    CHECK (state <> 'fired' OR (every = '' AND nudge_id IS NOT NULL)),
    CHECK ((fire_count = 0) = (fired_at IS NULL)),
    CHECK (nudge_id IS NULL OR fire_count > 0)
);

-- DueReminders and the scheduler's "when is the next one" read this.
CREATE INDEX reminders_due ON reminders (state, due);

-- ReminderForNudge; unique because each firing has its own nudge.
CREATE UNIQUE INDEX reminders_nudge ON reminders (nudge_id) WHERE nudge_id IS NOT NULL;

-- +goose Down
DROP INDEX reminders_nudge;
DROP INDEX reminders_due;
DROP TABLE reminders;
