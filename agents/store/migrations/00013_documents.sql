-- Documents agents write for the lawyer (seed 001's "agent files"): a
-- meeting brief, kept so the lawyer can read and copy it again after the
-- bubble is gone. A title and Markdown, linked to the agent that wrote it
-- (agent is '' for a document Spirit's code wrote without a model) and to
-- what asked for it (origin, e.g. 'nudge-12').

-- +goose Up
CREATE TABLE documents (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    created  INTEGER NOT NULL,
    title    TEXT    NOT NULL CHECK (trim(title) <> ''),
    markdown TEXT    NOT NULL CHECK (trim(markdown) <> ''),
    agent    TEXT    NOT NULL DEFAULT '',
    origin   TEXT    NOT NULL DEFAULT ''
);
-- An agent's documents, for Activity.
CREATE INDEX documents_agent ON documents (agent, id) WHERE agent <> '';

-- +goose Down
DROP INDEX documents_agent;
DROP TABLE documents;
