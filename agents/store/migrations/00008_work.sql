-- Work Spirit does outside a conversation (package work): each request
-- and its one outcome, and the routines the lawyer scheduled.

-- +goose Up
-- One row per request, from the moment it is accepted (a webhook answers
-- with its id) to its outcome. The world log gets one line per outcome;
-- this row is what GET /work/{id} and the output gate read.
CREATE TABLE work_runs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    source      TEXT    NOT NULL CHECK (source <> ''),       -- heartbeat, routine:3, webhook, calendar
    prompt      TEXT    NOT NULL DEFAULT '',
    dedup_key   TEXT    NOT NULL DEFAULT '',
    state       TEXT    NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'running', 'done', 'skip', 'error')),
    reason      TEXT    NOT NULL DEFAULT '',                 -- a skip's reason or an error's text
    message     TEXT    NOT NULL DEFAULT '',                 -- what notify_user asked to tell the lawyer
    action      TEXT    NOT NULL DEFAULT '',                 -- the task it proposed, if any
    -- When the output gate let the message through, set before the
    -- delivery is attempted: a run that stopped half-way still counts as
    -- delivered for the duplicate check, so a restart never says it twice.
    delivered   INTEGER,                                     -- unix ms; NULL: not delivered
    nudge       INTEGER REFERENCES nudges (id),              -- the nudge the delivery became
    created     INTEGER NOT NULL,                            -- unix ms
    started     INTEGER,
    finished    INTEGER,
    duration_ms INTEGER NOT NULL DEFAULT 0 CHECK (duration_ms >= 0),
    tokens_in   INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),
    tokens_out  INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),
    cost_usd    REAL    NOT NULL DEFAULT 0,
    CHECK ((state IN ('queued', 'running')) = (finished IS NULL)),
    CHECK (delivered IS NULL OR message <> '')
);
-- The output gate's duplicate and hourly checks.
CREATE INDEX work_runs_delivered ON work_runs (delivered) WHERE delivered IS NOT NULL;
-- Runs a restart finds unfinished.
CREATE INDEX work_runs_open ON work_runs (state) WHERE state IN ('queued', 'running');

-- Jobs the lawyer defined: a 5-field cron spec in the lawyer's time zone
-- and the prompt to run then.
CREATE TABLE routines (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    cron     TEXT    NOT NULL CHECK (trim(cron) <> ''),
    prompt   TEXT    NOT NULL CHECK (trim(prompt) <> ''),
    enabled  INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created  INTEGER NOT NULL,
    updated  INTEGER NOT NULL,
    last_run INTEGER                                         -- the latest scheduled time handled; NULL: none yet
);

-- +goose Down
DROP TABLE routines;
DROP INDEX work_runs_open;
DROP INDEX work_runs_delivered;
DROP TABLE work_runs;
