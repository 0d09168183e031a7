-- Task agents: their saved state, the approvals they asked for, and the
-- detail a nudge shows (a question's options, an approval's exact action).

-- +goose Up
ALTER TABLE nudges ADD COLUMN detail TEXT NOT NULL DEFAULT ''; -- JSON, by kind

-- What a restart needs to go on with an agent. Its history is the world
-- log; this row is where it stands now.
CREATE TABLE tasks (
    session   TEXT    PRIMARY KEY NOT NULL CHECK (session <> ''),
    prompt    TEXT    NOT NULL CHECK (prompt <> ''),
    need      TEXT    NOT NULL DEFAULT '',
    origin    TEXT    NOT NULL DEFAULT '',          -- "nudge-12", "voice", "api"
    context   TEXT    NOT NULL DEFAULT '',          -- JSON facts it starts from (the thread)
    phase     TEXT    NOT NULL DEFAULT 'queued'
              CHECK (phase IN ('queued', 'running', 'waiting', 'finished', 'cancelled', 'failed')),
    waiting   INTEGER REFERENCES nudges (id),       -- the question, approval or help nudge it waits on
    state     TEXT    NOT NULL DEFAULT '{}',        -- JSON: plan, step, conversation, budgets used
    attempts  INTEGER NOT NULL DEFAULT 0,           -- verifier retries since the lawyer last helped
    runs      INTEGER NOT NULL DEFAULT 0,           -- runs started, across restarts and budgets
    escalated INTEGER NOT NULL DEFAULT 0,           -- the keeper escalated a failure once
    result    TEXT    NOT NULL DEFAULT '',
    created   INTEGER NOT NULL,
    updated   INTEGER NOT NULL
);
CREATE INDEX tasks_phase ON tasks (phase, updated);

-- An approval is for exactly one action: the tool and its canonical
-- arguments. A write tool runs only against an approved, unused row.
CREATE TABLE approvals (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    session TEXT    NOT NULL REFERENCES tasks (session),
    tool    TEXT    NOT NULL CHECK (tool <> ''),
    args    TEXT    NOT NULL,
    nudge   INTEGER REFERENCES nudges (id),
    state   TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'denied', 'used')),
    created INTEGER NOT NULL,
    decided INTEGER
);
CREATE INDEX approvals_session ON approvals (session, state);

-- +goose Down
DROP TABLE approvals;
DROP TABLE tasks;
ALTER TABLE nudges DROP COLUMN detail;
